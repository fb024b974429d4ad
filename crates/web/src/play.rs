//! Games in the browser: a person picks a variant and an opponent (any
//! player spec the server allows, or another person) and plays through the
//! referee like any other player, with clocks, resignation and draw offers;
//! the finished game is stored like every other.
//!
//! Each seat played from a browser has a secret token: a request with it
//! sees that seat's view and may act for it; every other request is a
//! spectator's and sees the spectator's view. The referee's full state never
//! reaches this module (see [`arbiter_core::model::LiveFrame`]).

use arbiter_core::sync::LockExt;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use serde_json::Value;
use tokio::sync::watch;
use tokio_stream::wrappers::WatchStream;
use tokio_stream::{Stream, StreamExt};

use super::answers::{Done, MoveOffer, PlayItem, SessionView, Started};
use super::{blocking, ApiError, Shared};
use arbiter_api::schema::{BoardGeometry, PieceSet};
use arbiter_api::Viewer;
use arbiter_core::clock::TimeControl;
use arbiter_core::model::seeds::seat_seed;
use arbiter_core::model::{LiveFrame, Seat};
use arbiter_play::players::{Answer, Player, PlayerError, PlayerSpec, Reply};
use arbiter_play::record::EventInfo;
use arbiter_play::referee::{play, GameSetup, SeatSetup, Turn};

/// The overrun a browser seat is allowed past its clock: the network's and
/// the page's latency on top of the engines' [`arbiter_tournament::config::DEFAULT_MARGIN_MS`].
pub const BROWSER_MARGIN_MS: u64 = 200;

/// A browser seat that does nothing this long has left the game (its
/// thread and seat are freed).
const IDLE_LIMIT: Duration = Duration::from_secs(10 * 60);
/// How long a person has to answer a draw offer.
const DRAW_ANSWER: Duration = Duration::from_secs(60);
/// How long a finished game stays on the server's list of live games.
const KEEP_FINISHED: Duration = Duration::from_secs(60 * 60);

/// The games played through this server, by id.
#[derive(Default)]
pub(super) struct Sessions {
    map: Mutex<HashMap<u64, Arc<Session>>>,
    next: AtomicU64,
    /// Games whose thread is running.
    running: Arc<AtomicUsize>,
}

/// Counts a running game until dropped.
struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a browser seat asks the referee for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Move(u64),
    Resign,
    OfferDraw,
    AnswerDraw(bool),
}

/// How a seat of a session is reached: its secret, and the channel to its
/// player while the game is on.
struct SeatLink {
    /// The secret of a browser seat (`None`: a program plays it).
    token: Option<String>,
    actions: Mutex<Option<Sender<Action>>>,
}

/// What changes as the game goes on.
#[derive(Default)]
struct Progress {
    frame: Option<LiveFrame>,
    frame_at: Option<Instant>,
    /// Per seat: its legal moves while it is asked to move.
    offers: Vec<Option<Vec<MoveOffer>>>,
    /// Per seat: a draw offer from this player awaits its answer.
    draw_offered_by: Vec<Option<Seat>>,
    /// Per seat: something to tell that player ("your draw offer was declined").
    notices: Vec<Option<String>>,
    stored_as: Option<i64>,
    error: Option<String>,
    finished_at: Option<Instant>,
}

/// One game played through the server.
struct Session {
    id: u64,
    variant: String,
    variant_name: String,
    board: BoardGeometry,
    /// The variant's piece glyph sets.
    piece_sets: Vec<PieceSet>,
    sides: Vec<String>,
    names: Vec<String>,
    seats: Vec<SeatLink>,
    progress: Mutex<Progress>,
    version: watch::Sender<u64>,
}

impl Session {
    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock_or_recover()
    }

    /// Applies `f` to the progress and wakes every open page.
    fn update(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut self.progress());
        self.version.send_modify(|v| *v += 1);
    }

    /// The seat whose token this is.
    fn seat_of(&self, token: Option<&str>) -> Option<Seat> {
        let token = token?;
        self.seats.iter().position(|s| s.token.as_deref() == Some(token)).map(Seat::at)
    }

    /// Everything `seat` (or a spectator, for `None`) may see now: the
    /// session, and the latest frame as that viewer sees it.
    fn view(&self, seat: Option<Seat>) -> SessionView {
        let p = self.progress();
        let viewer = seat.map_or(Viewer::Spectator, Seat::viewer);
        fn seat_part<T: Clone>(items: &[Option<T>], seat: Option<Seat>) -> Option<T> {
            seat.and_then(|s| items.get(s.index()).cloned().flatten())
        }
        SessionView {
            id: self.id,
            variant: self.variant.clone(),
            variant_name: self.variant_name.clone(),
            board: self.board.clone(),
            piece_sets: self.piece_sets.clone(),
            sides: self.sides.clone(),
            players: self.names.clone(),
            you: seat,
            now: p.frame.as_ref().and_then(|f| f.seen_by(viewer)),
            clock_age_ms: p.frame_at.map(|t| t.elapsed().as_millis() as u64),
            moves: seat_part(&p.offers, seat),
            draw_offered_by: seat_part(&p.draw_offered_by, seat),
            notice: seat_part(&p.notices, seat),
            stored_as: p.stored_as,
            error: p.error.clone(),
        }
    }

    /// Hands `action` to `seat`'s player.
    fn send(&self, seat: Seat, action: Action) -> Result<(), ApiError> {
        let seat = &self.seats[seat.index()];
        let sender = seat.actions.lock_or_recover();
        match sender.as_ref().map(|s| s.send(action)) {
            Some(Ok(())) => Ok(()),
            _ => Err(ApiError::bad_request("the game is over")),
        }
    }
}

/// A seat played from a browser: waits for the person's actions.
struct BrowserPlayer {
    name: String,
    seat: Seat,
    session: Arc<Session>,
    actions: Receiver<Action>,
    /// The ply at which this player's last draw offer was made.
    offered_at: Option<u32>,
}

impl BrowserPlayer {
    fn next_action(&self, deadline: Option<Instant>) -> Result<Action, PlayerError> {
        let wait = deadline.map_or(IDLE_LIMIT, |d| d.saturating_duration_since(Instant::now()).min(IDLE_LIMIT));
        match self.actions.recv_timeout(wait) {
            Ok(a) => Ok(a),
            Err(RecvTimeoutError::Timeout) if deadline.is_some_and(|d| Instant::now() >= d) => {
                Err(PlayerError::Timeout)
            }
            Err(_) => Err(PlayerError::Crashed("the browser player left".into())),
        }
    }
}

impl Player for BrowserPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let moves = turn.legal_moves();
        let offer: Vec<MoveOffer> = moves
            .iter()
            .zip(turn.move_cells())
            .map(|(&mv, cells)| MoveOffer { id: mv.to_string(), text: turn.move_text(mv).unwrap_or_default(), cells })
            .collect();
        let seat = self.seat.index();
        let declined = self.offered_at == Some(turn.ply());
        self.session.update(|p| {
            p.offers[seat] = Some(offer);
            if declined {
                p.notices[seat] = Some("your draw offer was declined".into());
            }
        });
        let deadline = turn.budget_ms().map(|b| Instant::now() + Duration::from_millis(b));
        let answer = loop {
            match self.next_action(deadline) {
                Ok(Action::Move(mv)) if moves.contains(&mv) => break Ok(Answer::Move(mv)),
                Ok(Action::Resign) => break Ok(Answer::Resign),
                Ok(Action::OfferDraw) if !declined => break Ok(Answer::OfferDraw),
                Ok(_) => continue,
                Err(e) => break Err(e),
            }
        };
        if matches!(answer, Ok(Answer::OfferDraw)) {
            self.offered_at = Some(turn.ply());
        }
        self.session.update(|p| {
            p.offers[seat] = None;
            p.notices[seat] = None;
        });
        answer.map(Reply::answer)
    }

    fn accepts_draw(&mut self, from: Seat) -> bool {
        let seat = self.seat.index();
        self.session.update(|p| p.draw_offered_by[seat] = Some(from));
        let deadline = Instant::now() + DRAW_ANSWER;
        let accepted = loop {
            match self.next_action(Some(deadline)) {
                Ok(Action::AnswerDraw(yes)) => break yes,
                Ok(_) => continue,
                Err(_) => break false,
            }
        };
        self.session.update(|p| p.draw_offered_by[seat] = None);
        accepted
    }
}

/// Body of `POST /api/play`.
#[derive(serde::Deserialize)]
pub(super) struct StartRequest {
    variant: String,
    /// A player spec, or `human` for a second person (who joins with the invite token).
    opponent: String,
    /// `0`, `1`... or `random`: the seat of the person starting the game.
    #[serde(default)]
    seat: Option<String>,
    /// Time control (default: the variant's).
    #[serde(default)]
    tc: Option<String>,
    /// A start position in the variant's notation (default: its start).
    #[serde(default)]
    position: Option<String>,
    /// Variant options.
    #[serde(default)]
    options: serde_json::Map<String, Value>,
    /// The person's name in the record.
    #[serde(default)]
    name: Option<String>,
}

fn token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// `POST /api/play`: starts a game; answers its id, the person's seat and
/// token, and for a game between two people the other seat's invite token.
pub(super) async fn start(State(app): State<Shared>, Json(req): Json<StartRequest>) -> Result<Json<Started>, ApiError> {
    blocking(move || start_game(&app, req)).await
}

fn start_game(app: &Shared, req: StartRequest) -> Result<Json<Started>, ApiError> {
    let variant = app.registry.get(&req.variant).map_err(|e| ApiError::bad_request(e.to_string()))?.clone();
    let info = variant.info().clone();
    let n = info.players.len();
    let opponent = if req.opponent.trim() == "human" {
        None
    } else {
        let spec = PlayerSpec::parse(&req.opponent).map_err(|e| ApiError::bad_request(e.to_string()))?;
        if spec.is_engine() && !app.config.allow_engines {
            return Err(ApiError::forbidden("engine players need `arbiter serve --allow-engines`"));
        }
        if spec.is_person() {
            return Err(ApiError::bad_request("opponent 'human' is another person in the browser"));
        }
        Some(spec)
    };
    let me = Seat::at(match req.seat.as_deref().map(str::trim) {
        None | Some("") | Some("random") => rand::random_range(0..n),
        Some(s) => s
            .parse()
            .ok()
            .filter(|&s| s < n)
            .ok_or_else(|| ApiError::bad_request(format!("seat '{s}' must be 0..{n} or random")))?,
    });
    let tc_text = req.tc.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&info.default_time_control);
    let tc = TimeControl::parse(tc_text).map_err(|e| ApiError::bad_request(e.to_string()))?;
    variant.new_game(&req.options).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let position = req.position.as_deref().map(str::trim).filter(|p| !p.is_empty()).map(String::from);
    if let Some(p) = &position {
        variant.from_position(p, &req.options).map_err(|e| ApiError::bad_request(e.to_string()))?;
    }

    let person = req.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or("person").to_string();
    // A name goes into every record and store: no control characters, no NUL.
    if person.chars().any(char::is_control) || person.chars().count() > 100 {
        return Err(ApiError::bad_request("name must be at most 100 characters, none of them control characters"));
    }
    let browser_seat = |s: Seat| s == me || opponent.is_none();
    let mut receivers = Vec::new();
    let seats: Vec<SeatLink> = Seat::all(n)
        .map(|s| {
            if browser_seat(s) {
                let (tx, rx) = mpsc::channel();
                receivers.push(Some(rx));
                SeatLink { token: Some(token()), actions: Mutex::new(Some(tx)) }
            } else {
                receivers.push(None);
                SeatLink { token: None, actions: Mutex::new(None) }
            }
        })
        .collect();
    let id = app.sessions.next.fetch_add(1, Ordering::Relaxed) + 1;
    let seed = rand::random::<u64>();
    // The program seats' players, made once: their names go in the record.
    let mut programs: Vec<Option<Box<dyn Player>>> = Seat::all(n)
        .map(|s| opponent.as_ref().filter(|_| !browser_seat(s)).map(|spec| spec.create(seat_seed(seed, s))))
        .collect();
    let names: Vec<String> = (0..n)
        .map(|s| match (&programs[s], &opponent) {
            (Some(program), _) => program.name(),
            (None, Some(_)) => person.clone(),
            (None, None) => format!("{person} ({})", info.players[s]),
        })
        .collect();
    let session = Arc::new(Session {
        id,
        variant: info.id.clone(),
        variant_name: info.name.clone(),
        board: info.board.clone(),
        piece_sets: variant.piece_sets().to_vec(),
        sides: info.players.clone(),
        names: names.clone(),
        seats,
        progress: Mutex::new(Progress {
            offers: vec![None; n],
            draw_offered_by: vec![None; n],
            notices: vec![None; n],
            ..Progress::default()
        }),
        version: watch::channel(0).0,
    });
    let mut players: Vec<Box<dyn Player>> = Vec::with_capacity(n);
    for (s, rx) in Seat::all(n).zip(receivers) {
        players.push(match (rx, programs[s.index()].take()) {
            (Some(actions), _) => Box::new(BrowserPlayer {
                name: names[s.index()].clone(),
                seat: s,
                session: session.clone(),
                actions,
                offered_at: None,
            }),
            (None, Some(program)) => program,
            (None, None) => return Err(ApiError::from("a seat has neither a person nor a program")),
        });
    }
    let setup = GameSetup {
        variant: info.id.clone(),
        options: req.options.clone(),
        position: position.clone(),
        seats: Seat::all(n)
            .map(|s| SeatSetup {
                name: names[s.index()].clone(),
                spec: if browser_seat(s) { "human".into() } else { req.opponent.trim().to_string() },
                tc: tc.clone(),
            })
            .collect(),
        seed,
        margin_ms: BROWSER_MARGIN_MS,
        max_plies: None,
        claim_draws: true,
        adjudication: Default::default(),
        pin_seats: false,
    };
    let running = &app.sessions.running;
    if running.fetch_add(1, Ordering::SeqCst) >= app.config.max_games {
        running.fetch_sub(1, Ordering::SeqCst);
        return Err(ApiError(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{} games are in progress, the most this server plays at once: try again later",
                app.config.max_games
            ),
        ));
    }
    let slot = Running(running.clone());
    {
        let mut map = app.sessions.map.lock_or_recover();
        map.retain(|_, s| s.progress().finished_at.is_none_or(|t| t.elapsed() < KEEP_FINISHED));
        map.insert(id, session.clone());
    }
    let (store, game_session) = (app.store.clone(), session.clone());
    std::thread::Builder::new().name(format!("web-game-{id}")).spawn(move || {
        let _slot = slot;
        let s = &game_session;
        let watch = &mut |frame: LiveFrame| {
            s.update(|p| {
                p.frame = Some(frame);
                p.frame_at = Some(Instant::now());
            })
        };
        let record = play(&setup, &variant, &mut players, Some(watch));
        let event = EventInfo { event: "arbiter serve".into(), round: 1, tournament: None };
        let stored =
            record.map_err(|e| e.to_string()).and_then(|r| store.add_game(&r, &event).map_err(|e| e.to_string()));
        for seat in &s.seats {
            *seat.actions.lock_or_recover() = None;
        }
        s.update(|p| {
            match stored {
                Ok(id) => p.stored_as = Some(id),
                Err(e) => p.error = Some(e),
            }
            p.finished_at = Some(Instant::now());
        });
    })?;
    let invite = (opponent.is_none())
        .then(|| Seat::all(n).zip(&session.seats).find(|(s, _)| *s != me).and_then(|(_, seat)| seat.token.clone()))
        .flatten();
    Ok(Json(Started { id, seat: me, token: session.seats[me.index()].token.clone(), invite }))
}

/// `GET /api/play`: the games of this server, newest first.
pub(super) async fn list(State(app): State<Shared>) -> Json<Vec<PlayItem>> {
    let map = app.sessions.map.lock_or_recover();
    let mut games: Vec<PlayItem> = map
        .values()
        .map(|s| {
            let p = s.progress();
            PlayItem {
                id: s.id,
                variant: s.variant.clone(),
                players: s.names.clone(),
                ply: p.frame.as_ref().map(|f| f.ply),
                result: p.frame.as_ref().and_then(|f| f.result.as_ref()).map(|r| r.pgn().to_string()),
            }
        })
        .collect();
    games.sort_by_key(|g| std::cmp::Reverse(g.id));
    Json(games)
}

/// The token of a request (`?token=`), if any.
#[derive(serde::Deserialize)]
pub(super) struct Access {
    token: Option<String>,
}

fn session(app: &Shared, id: u64) -> Result<Arc<Session>, ApiError> {
    let map = app.sessions.map.lock_or_recover();
    map.get(&id).cloned().ok_or_else(|| ApiError::not_found(format!("no game {id} is being played here")))
}

/// `GET /api/play/{id}`: the game as the token's seat (or a spectator) sees it.
pub(super) async fn state(
    State(app): State<Shared>,
    Path(id): Path<u64>,
    Query(access): Query<Access>,
) -> Result<Json<SessionView>, ApiError> {
    let s = session(&app, id)?;
    Ok(Json(s.view(s.seat_of(access.token.as_deref()))))
}

/// `GET /api/play/{id}/events`: the same view, pushed (event `state`) at
/// once and after every change.
pub(super) async fn events(
    State(app): State<Shared>,
    Path(id): Path<u64>,
    Query(access): Query<Access>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let s = session(&app, id)?;
    let seat = s.seat_of(access.token.as_deref());
    let changes = WatchStream::new(s.version.subscribe());
    let events = changes.map(move |_| {
        Ok(Event::default().event("state").data(serde_json::to_string(&s.view(seat)).expect("plain data serialises")))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

/// Body of `POST /api/play/{id}/act`.
#[derive(serde::Deserialize)]
pub(super) struct ActRequest {
    token: String,
    /// `move`, `resign`, `offer_draw`, `accept_draw` or `decline_draw`.
    action: String,
    /// For `move`: the move id, as the view listed it.
    #[serde(default, rename = "move")]
    mv: Option<String>,
}

/// `POST /api/play/{id}/act`: a browser seat moves, resigns, offers or answers a draw.
pub(super) async fn act(
    State(app): State<Shared>,
    Path(id): Path<u64>,
    Json(req): Json<ActRequest>,
) -> Result<Json<Done>, ApiError> {
    let s = session(&app, id)?;
    let seat = s.seat_of(Some(&req.token)).ok_or_else(|| ApiError::forbidden("not a player of this game"))?;
    let action = match req.action.as_str() {
        "move" => {
            let text = req.mv.as_deref().unwrap_or_default();
            // The offer is taken with the move: a second move sent before the
            // player is asked again finds none (one move per turn).
            let mut progress = s.progress();
            let offer = &mut progress.offers[seat.index()];
            let Some(offered) = offer.as_ref() else {
                return Err(ApiError::bad_request("it is not your turn"));
            };
            if !offered.iter().any(|m| m.id == text) {
                return Err(ApiError::bad_request(format!("move '{text}' is not one of your legal moves")));
            }
            let mv = text.parse().map_err(|_| ApiError::bad_request(format!("move '{text}' is not a move id")))?;
            *offer = None;
            Action::Move(mv)
        }
        "resign" => Action::Resign,
        "offer_draw" => Action::OfferDraw,
        "accept_draw" => Action::AnswerDraw(true),
        "decline_draw" => Action::AnswerDraw(false),
        other => return Err(ApiError::bad_request(format!("unknown action '{other}'"))),
    };
    s.send(seat, action)?;
    Ok(Json(Done { ok: true }))
}
