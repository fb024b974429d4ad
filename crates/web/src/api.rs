//! Read-only JSON over the store: variants, tournaments with standings,
//! the rating list, the game list, one game replayed move by move for a
//! viewer, its record.

use super::answers::{
    GamePage, LiveGames, QueueView, Ratings, Replay, ReplayFrame, StandingsRow, StandingsTable, TournamentItem,
    TournamentPage, TuneView, VariantCard,
};
use super::{blocking, ApiError, Reveal, Shared};
use arbiter_api::Viewer;
use arbiter_core::clock::Clock;
use arbiter_core::model::{FrameResult, Seat, SeenFrame};
use arbiter_store::{GameFilter, StoredGame};
use arbiter_store::{PairTally, Tally};
use arbiter_tournament::view::TournamentView;
use arbiter_tournament::{rating_list, standings};
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;

/// `GET /api/variants`: every installed variant's card.
pub(super) async fn variants(State(app): State<Shared>) -> Json<Vec<VariantCard>> {
    let cards = app
        .registry
        .variants()
        .map(|v| {
            let info = v.info();
            VariantCard {
                id: info.id.clone(),
                name: info.name.clone(),
                players: info.players.clone(),
                board: info.board.clone(),
                piece_sets: v.piece_sets().to_vec(),
                notation: info.notation.clone(),
                hidden: info.capabilities.hidden_information,
                default_time_control: info.default_time_control.clone(),
                options: info.options.clone(),
            }
        })
        .collect();
    Json(cards)
}

/// `GET /api/tournaments`: every stored tournament, newest first.
pub(super) async fn tournaments(State(app): State<Shared>) -> Result<Json<Vec<TournamentItem>>, ApiError> {
    blocking(move || {
        let list = app.store.tournament_list()?;
        Ok(Json(
            list.into_iter()
                .map(|(t, games)| TournamentItem { id: t.id, name: t.name, finished: t.finished_at.is_some(), games })
                .collect(),
        ))
    })
    .await
}

/// `GET /api/tournaments/{id}`: progress, standings overall and per variant,
/// crosstables and Elo.
pub(super) async fn tournament(
    State(app): State<Shared>,
    Path(id): Path<i64>,
) -> Result<Json<TournamentPage>, ApiError> {
    blocking(move || {
        let stored =
            app.store.tournament(Some(id))?.ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))?;
        let t = TournamentView::load(&app.store, Some(id))?;
        let (tallies, byes) = t.results(&app.store)?;
        let (expected, played) = (t.expected_games(), tallies.games() as usize);
        let names = t.names();
        let (games, pairs) = standings::of_variant(&tallies, None);
        let mut tables = vec![table("overall", &names, &games, &pairs, &byes)];
        if t.definition.variants.len() > 1 {
            for v in &t.definition.variants {
                let (games, pairs) = standings::of_variant(&tallies, Some(v));
                tables.push(table(v, &names, &games, &pairs, &vec![0.0; names.len()]));
            }
        }
        let config = &t.definition.config;
        Ok(Json(TournamentPage {
            id,
            name: stored.name,
            format: config.format,
            variants: t.definition.variants.clone(),
            players: names,
            finished: stored.finished_at.is_some(),
            played,
            expected: expected.max(played),
            queue: queue_view(&app, id)?,
            tables,
            tune: t.tune_state(&app.store)?.map(|state| tune_view(&state)),
        }))
    })
    .await
}

/// A tune's parameters and the estimate after each finished pair (each
/// parameter's path, for the plot).
fn tune_view(state: &arbiter_tournament::tune::TuneState) -> TuneView {
    TuneView {
        iterations: state.iterations(),
        in_flight: state.spsa().in_flight,
        params: state.spsa().params.clone(),
        start: state.start.clone(),
        theta: state.theta().to_vec(),
        points: state.points.clone(),
    }
}

/// A tournament's queue on a shared store: games waiting, being played,
/// results kept unconfirmed (counted nowhere until a second worker's game
/// agrees or the operator accepts them), and each worker host's games and
/// rate (all zero and empty for a local run).
fn queue_view(app: &Shared, id: i64) -> Result<QueueView, ApiError> {
    let (waiting, playing) = app.store.queue_counts(id)?;
    Ok(QueueView {
        waiting,
        playing,
        unconfirmed: app.store.awaiting_confirmation(id)?,
        workers: app.store.worker_rates(id)?,
    })
}

/// `GET /api/tournaments/{id}/live`: the games in progress as spectators
/// see them (the tournament's runner stores only that view), and how many
/// games are stored (pages refetch the standings when it changes).
pub(super) async fn tournament_live(
    State(app): State<Shared>,
    Path(id): Path<i64>,
) -> Result<Json<LiveGames>, ApiError> {
    blocking(move || {
        let filter = GameFilter { tournament: Some(id), ..GameFilter::default() };
        let (_, played) = app.store.game_list(&filter, 1, 0)?;
        Ok(Json(LiveGames { played, games: app.store.live_games(id)? }))
    })
    .await
}

fn table(title: &str, names: &[String], games: &[&Tally], pairs: &[&PairTally], byes: &[f64]) -> StandingsTable {
    let t = standings::table(names.len(), games, pairs, byes);
    let rows = t
        .rows
        .iter()
        .enumerate()
        .map(|(rank, r)| StandingsRow {
            rank: rank + 1,
            entrant: r.entrant,
            name: names[r.entrant].clone(),
            games: r.games,
            points: r.points(),
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            elo: r.elo,
            error: r.error,
        })
        .collect();
    let cross = t.cross.iter().map(|row| row.iter().map(|&(p, g)| (g > 0).then_some((p, g))).collect()).collect();
    StandingsTable { title: title.to_string(), rows, cross, unfinished: t.unfinished }
}

/// Query of `GET /api/ratings`: the scale and the bootstrap.
#[derive(serde::Deserialize)]
pub(super) struct RatingsQuery {
    /// `NAME=ELO`: one player's rating fixed.
    anchor: Option<String>,
    /// The field's mean rating when no player is anchored (default 0).
    average: Option<f64>,
    /// Bootstrap resamples (default 100, at most 1000).
    bootstrap: Option<u32>,
}

/// The most bootstrap resamples a request may ask for.
const MAX_RESAMPLES: u32 = 1000;

/// `GET /api/ratings`: the rating list over every stored tournament, a
/// table per variant (see `arbiter ratings`).
pub(super) async fn ratings(
    State(app): State<Shared>,
    Query(q): Query<RatingsQuery>,
) -> Result<Json<Ratings>, ApiError> {
    blocking(move || {
        let anchor = match q.anchor.as_deref().filter(|a| !a.trim().is_empty()) {
            None => None,
            Some(a) => {
                let refuse = || ApiError::bad_request(format!("anchor '{}' must be NAME=ELO", a.escape_debug()));
                let (name, elo) = a.split_once('=').ok_or_else(refuse)?;
                let elo: f64 = elo.trim().parse().ok().filter(|e: &f64| e.is_finite()).ok_or_else(refuse)?;
                Some((name.trim().to_string(), elo))
            }
        };
        let average = q.average.filter(|a| a.is_finite()).unwrap_or(0.0);
        let resamples = q.bootstrap.unwrap_or(100).min(MAX_RESAMPLES);
        let tables: Vec<rating_list::Table> = rating_list::rated_games(&app.store, &[])?
            .iter()
            .map(|list| {
                let scale = rating_list::scale(list, anchor.as_ref().map(|(n, e)| (n.as_str(), *e)), average);
                rating_list::table(list, scale, resamples, 1)
            })
            .collect();
        Ok(Json(Ratings { resamples, variants: tables }))
    })
    .await
}

/// Query of `GET /api/games`: the filters (see [`GameFilter`]) and the page.
#[derive(serde::Deserialize)]
pub(super) struct GamesQuery {
    variant: Option<String>,
    player: Option<String>,
    result: Option<String>,
    termination: Option<String>,
    tournament: Option<i64>,
    limit: Option<u32>,
    offset: Option<u32>,
}

/// `GET /api/games`: a page of games, newest first, filtered.
pub(super) async fn games(State(app): State<Shared>, Query(q): Query<GamesQuery>) -> Result<Json<GamePage>, ApiError> {
    blocking(move || {
        // No store keeps a NUL in a text; PostgreSQL refuses one in a query.
        for (name, value) in [("variant", &q.variant), ("player", &q.player), ("result", &q.result)]
            .into_iter()
            .chain([("termination", &q.termination)])
        {
            if value.as_deref().is_some_and(|v| v.contains('\0')) {
                return Err(ApiError::bad_request(format!("filter '{name}' holds a NUL character")));
            }
        }
        let given = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        let filter = GameFilter {
            variant: given(q.variant),
            player: given(q.player),
            result: given(q.result),
            termination: given(q.termination),
            tournament: q.tournament,
        };
        let limit = q.limit.unwrap_or(50).clamp(1, 500);
        let (games, total) = app.store.game_list(&filter, limit, q.offset.unwrap_or(0))?;
        Ok(Json(GamePage { total, games }))
    })
    .await
}

/// Query of `GET /api/games/{id}/record`: the record format (`pgn`, the
/// default, `jsonl` or `epd`: every format `--out` writes).
#[derive(serde::Deserialize)]
pub(super) struct RecordQuery {
    format: Option<String>,
}

/// Query of `GET /api/games/{id}`.
#[derive(serde::Deserialize)]
pub(super) struct GameQuery {
    /// `spectator` (default), `referee`, or `player:N` (seat N, from 0).
    view: Option<String>,
}

/// Whether the full record of `game` may be shown, and the error if not.
fn may_reveal(app: &Shared, hidden: bool) -> Result<(), ApiError> {
    if hidden && app.config.reveal == Reveal::Never {
        Err(ApiError::forbidden("this server does not reveal hidden-information records (--reveal never)"))
    } else {
        Ok(())
    }
}

fn stored_game(app: &Shared, id: i64) -> Result<StoredGame, ApiError> {
    app.store.game(id)?.ok_or_else(|| ApiError::not_found(format!("no game {id}")))
}

/// The viewer a `view` query names; a view beyond the spectator's of a
/// hidden-information game needs a server that reveals finished games.
fn viewer_of(app: &Shared, view: Option<&str>, seats: usize, hidden: bool) -> Result<Viewer, ApiError> {
    let viewer = match view {
        None | Some("spectator") => return Ok(Viewer::Spectator),
        Some("referee") => Viewer::Referee,
        Some(v) => match v.strip_prefix("player:").and_then(|n| n.parse::<u32>().ok()) {
            Some(p) if (p as usize) < seats => Viewer::Player(p),
            _ => {
                return Err(ApiError::bad_request(format!(
                    "view '{v}' must be spectator, referee or player:N with N below {seats}"
                )))
            }
        },
    };
    may_reveal(app, hidden)?;
    Ok(viewer)
}

/// `GET /api/games/{id}`: the game replayed through its plugin, one frame
/// per ply as the chosen viewer saw it: the move's text as the record
/// stored it (redacted for that viewer in a hidden-information game), each
/// player's clock after it, and the board.
pub(super) async fn game(
    State(app): State<Shared>,
    Path(id): Path<i64>,
    Query(q): Query<GameQuery>,
) -> Result<Json<Replay>, ApiError> {
    blocking(move || {
        let g = stored_game(&app, id)?;
        let record = &g.record;
        let variant = app.registry.get(&g.summary.variant)?;
        let info = variant.info();
        let hidden = info.capabilities.hidden_information;
        let viewer = viewer_of(&app, q.view.as_deref(), record.players.len(), hidden)?;
        // The stored texts, unless a hidden game is seen by less than the
        // referee: then each as the viewer saw it, in the one replay below.
        let redacted = hidden && viewer != Viewer::Referee;
        let mut game = variant.from_position(&record.start_position, &record.options)?;
        // Each clock as it started, then as the record has it after each move.
        let mut clocks: Vec<Option<u64>> =
            record.time_controls.iter().map(|tc| Clock::new(tc).remaining_ms()).collect();
        clocks.resize(record.players.len(), None);
        // The frame a watcher of the live game saw at each moment.
        let seen = |game: &arbiter_api::host::Game, ply: usize, clocks: &[Option<u64>], last: Option<String>| {
            Ok::<_, ApiError>(SeenFrame {
                ply: ply as u32,
                to_move: Seat::new(game.to_move()),
                observation: game.observe(viewer)?.view,
                last_move: last,
                clocks: clocks.to_vec(),
                result: None,
            })
        };
        let start = seen(&game, 0, &clocks, None)?;
        let mut frames = vec![ReplayFrame { seen: start, mover: None, text: None, used_ms: None }];
        for (i, ply) in record.plies.iter().enumerate() {
            let text = if redacted { game.move_text(ply.mv, viewer)? } else { ply.text.clone() };
            game.apply(ply.mv)?;
            if let Some(c) = clocks.get_mut(ply.player.index()) {
                *c = ply.clock_ms;
            }
            frames.push(ReplayFrame {
                seen: seen(&game, i + 1, &clocks, Some(text.clone()))?,
                mover: Some(ply.player),
                text: Some(text),
                used_ms: Some(ply.used_us / 1000),
            });
        }
        if let Some(last) = frames.last_mut() {
            let result = &record.result;
            last.seen.result =
                Some(FrameResult { result: result.pgn().to_string(), termination: result.termination.to_string() });
        }
        let can_reveal = hidden && app.config.reveal == Reveal::Finished;
        let mut views = vec!["spectator".to_string()];
        if can_reveal {
            views.extend((0..record.players.len()).map(|p| format!("player:{p}")));
            views.push("referee".into());
        }
        Ok(Json(Replay {
            id,
            variant: g.summary.variant.clone(),
            variant_name: info.name.clone(),
            board: info.board.clone(),
            piece_sets: variant.piece_sets().to_vec(),
            sides: info.players.clone(),
            players: g.summary.players.clone(),
            result: g.summary.result.clone(),
            termination: g.summary.termination.to_string(),
            event: g.summary.event.clone(),
            round: g.summary.round,
            time_controls: record.time_controls.clone(),
            tournament: g.slot.as_ref().map(|s| s.id),
            hidden,
            viewer: view_name(viewer),
            can_reveal,
            views,
            frames,
        }))
    })
    .await
}

/// A viewer as the `view` query names it.
fn view_name(viewer: Viewer) -> String {
    match viewer {
        Viewer::Player(p) => format!("player:{p}"),
        Viewer::Spectator => "spectator".into(),
        Viewer::Referee => "referee".into(),
    }
}

/// `GET /api/games/{id}/record`: the stored PGN (PDN for draughts), as a download.
pub(super) async fn record(
    State(app): State<Shared>,
    Path(id): Path<i64>,
    Query(q): Query<RecordQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let format = arbiter_play::record::format(q.format.as_deref().unwrap_or("pgn"))
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    blocking(move || {
        let g = stored_game(&app, id)?;
        let hidden =
            app.registry.get(&g.summary.variant).map(|v| v.info().capabilities.hidden_information).unwrap_or(true);
        may_reveal(&app, hidden)?;
        let text = format.write(&g.record, &g.event());
        // Draughts' PGN is PDN.
        let ext = if format.name() == "pgn" && text.contains("[GameType ") { "pdn" } else { format.extension() };
        let disposition = format!("attachment; filename=\"arbiter-game-{id}.{ext}\"");
        Ok((
            [(header::CONTENT_TYPE, format.media_type().to_string()), (header::CONTENT_DISPOSITION, disposition)],
            text,
        ))
    })
    .await
}
