//! The referee: runs one game. It holds the true state; each player is asked
//! for a move through a [`Turn`] that shows only that player's view and its
//! clock; answers are checked for legality before they are applied; every
//! player is told what it may see of each move; the game ends on the plugin's
//! status, a claimed draw, time, resignation, an illegal answer, a failing
//! player, a ply limit or the game-time cap.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use arbiter_api::host::{Game, MoveBuf, VariantHandle};
use arbiter_api::schema::VariantInfo;
use arbiter_api::{Error, ErrorKind, Outcome, Viewer};

use arbiter_core::clock::{Clock, TimeControl};
use arbiter_core::seat::{Answer, Player, PlayerError, Reply};
pub use arbiter_core::seat::{Seen, Start, Turn};

use arbiter_core::model::{GameRecord, LiveFrame, LiveView, PlyRecord, Seat};
pub use arbiter_core::verdict::{GameResult, Termination};

pub mod adjudication;
pub use adjudication::Adjudication;
mod setup;
pub use setup::{play, GameSetup, SeatSetup};

/// How one game is to be played.
#[derive(Clone, Debug)]
pub struct GameConfig {
    /// One time control per player, in turn order.
    pub time_controls: Vec<TimeControl>,
    /// Overrun tolerated before a flag falls.
    pub margin_ms: u64,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<u32>,
    /// Claim claimable draws (threefold, 50 moves) as soon as they arise.
    pub claim_draws: bool,
    /// Score adjudication (resign and draw rules), from engines' scores.
    pub adjudication: Adjudication,
    /// Pin each seat's engine to a CPU of its own among those this thread
    /// may use (`--affinity` with a pondering engine).
    pub pin_seats: bool,
}

impl GameConfig {
    /// Games on `time_controls` (one a player, in turn order) with an
    /// overrun of `margin_ms` tolerated: claimable draws claimed as they
    /// arise, no ply limit, no score adjudication, seats not pinned.
    pub fn new(time_controls: Vec<TimeControl>, margin_ms: u64) -> GameConfig {
        GameConfig {
            time_controls,
            margin_ms,
            max_plies: None,
            claim_draws: true,
            adjudication: Adjudication::default(),
            pin_seats: false,
        }
    }
}

/// Pins seat `i`'s engine to the `i`-th CPU this thread may use, when it
/// may use more than one; a failure is logged, and the game goes on.
fn pin_seats(players: &mut [Box<dyn Player>]) {
    let cpus = arbiter_core::process::allowed_cpus().unwrap_or_default();
    if cpus.len() < 2 {
        return;
    }
    for (i, p) in players.iter_mut().enumerate() {
        if let Err(e) = p.pin_to_cpu(cpus[i % cpus.len()]) {
            tracing::warn!("seat {i}: its engine not pinned to CPU {}: {e}", cpus[i % cpus.len()]);
        }
    }
}

/// Where a game starts.
pub enum StartFrom<'a> {
    /// The variant's start position.
    Standard,
    /// A position text.
    Position(&'a str),
}

/// Someone watching a game as it is played (see [`play_game_watched`]).
pub trait Watcher {
    /// Whether a frame is wanted now (each costs an observation per viewer);
    /// `last` for the frame that carries the result.
    fn wants(&mut self, _last: bool) -> bool {
        true
    }
    /// The frame of the moment.
    fn frame(&mut self, frame: LiveFrame);
    /// A ply was played (the referee's record of it), before the frame that
    /// shows it; called for every ply, so it must be cheap.
    fn ply(&mut self, _ply: &PlyRecord) {}
}

impl<F: FnMut(LiveFrame)> Watcher for F {
    fn frame(&mut self, frame: LiveFrame) {
        self(frame)
    }
}

/// Plays one game of `variant` between `players` (in turn order) and returns
/// its record. Errors only if the game cannot even be set up; everything
/// after that (plugin faults included) ends in a result.
pub fn play_game(
    variant: &VariantHandle,
    options: &serde_json::Map<String, serde_json::Value>,
    start: StartFrom<'_>,
    players: &mut [Box<dyn Player>],
    config: &GameConfig,
) -> Result<GameRecord, Error> {
    referee_game(variant, options, start, players, config, None)
}

/// [`play_game`], offering `watch` a [`LiveFrame`] at the start, after every
/// ply and at the end (web views of live games).
pub fn play_game_watched(
    variant: &VariantHandle,
    options: &serde_json::Map<String, serde_json::Value>,
    start: StartFrom<'_>,
    players: &mut [Box<dyn Player>],
    config: &GameConfig,
    watch: &mut dyn Watcher,
) -> Result<GameRecord, Error> {
    referee_game(variant, options, start, players, config, Some(watch))
}

fn referee_game(
    variant: &VariantHandle,
    options: &serde_json::Map<String, serde_json::Value>,
    start: StartFrom<'_>,
    players: &mut [Box<dyn Player>],
    config: &GameConfig,
    watch: Option<&mut dyn Watcher>,
) -> Result<GameRecord, Error> {
    let info = variant.info();
    let game = match start {
        StartFrom::Standard => variant.new_game(options)?,
        StartFrom::Position(text) => variant.from_position(text, options)?,
    };
    // A game whose every player is on a virtual clock is the same game on
    // any machine under any load: its record keeps only the day it was
    // played, and its duration is the time its players' clocks spent.
    let reproducible = players.iter().all(|p| p.on_virtual_clock());
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let started_at = if reproducible { now - now % 86_400 } else { now };
    let t0 = Instant::now();
    let start_position = game.position_text();
    let mut referee = Referee::new(game, info, config, watch);
    let result = referee.run(players);
    referee.show(players.len(), Some(result.clone()));
    for (seat, p) in Seat::all(players.len()).zip(players.iter_mut()) {
        p.game_over(&result, seat);
    }
    arbiter_core::process::flush_engine_log();
    let plugin = variant.plugin();
    // A faulted state tells nothing: replay the plies on a fresh one.
    let final_position = match referee.game.status().outcome {
        Outcome::Faulted => position_after(variant, options, &start_position, &referee.plies).unwrap_or_default(),
        _ => referee.game.position_text(),
    };
    let duration_ms = match reproducible {
        true => referee.plies.iter().map(|p| p.used_us).sum::<u64>() / 1000,
        false => t0.elapsed().as_millis() as u64,
    };
    Ok(GameRecord {
        variant: info.id.clone(),
        plugin: format!("{} {}", plugin.name, plugin.version),
        players: players.iter().map(|p| p.name()).collect(),
        engines: engine_names(players),
        time_controls: config.time_controls.clone(),
        options: options.clone(),
        standard_start: start_position == info.start_position,
        start_position,
        plies: referee.plies,
        result,
        final_position,
        started_at,
        duration_ms,
        viewer: None,
        record_tags: info.record_tags.clone(),
    })
}

/// The names the engines among `players` gave themselves, `""` for the
/// others; empty if none is an engine that said one.
fn engine_names(players: &[Box<dyn Player>]) -> Vec<String> {
    let names: Vec<String> = players.iter().map(|p| p.engine_name().unwrap_or_default()).collect();
    if names.iter().all(String::is_empty) {
        Vec::new()
    } else {
        names
    }
}

/// The position `plies` lead to from `start` (they were all legal where
/// they were played), or `None` if the plugin refuses.
pub fn position_after(
    variant: &VariantHandle,
    options: &serde_json::Map<String, serde_json::Value>,
    start: &str,
    plies: &[PlyRecord],
) -> Option<String> {
    let mut game = variant.from_position(start, options).ok()?;
    for p in plies {
        game.apply(p.mv).ok()?;
    }
    Some(game.position_text())
}

struct Referee<'a, 'w> {
    game: Game,
    info: &'a VariantInfo,
    config: &'a GameConfig,
    watch: Option<&'w mut dyn Watcher>,
    /// The last move as each player and the spectator saw it (watched games only).
    last_seen: Vec<String>,
    clocks: Vec<Clock>,
    plies: Vec<PlyRecord>,
    used_total_ms: u64,
    /// The arguments of the plugin's `adjudicate` call while it is to be
    /// asked (asked for, and not yet found not to offer it); built once.
    adjudicate_args: Option<serde_json::Value>,
}

fn end(outcome: Outcome, termination: Termination) -> GameResult {
    GameResult { outcome, termination }
}

/// A game the plugin is to blame for: no result.
fn void(termination: Termination) -> GameResult {
    end(Outcome::Ongoing, termination)
}

impl<'a, 'w> Referee<'a, 'w> {
    fn new(game: Game, info: &'a VariantInfo, config: &'a GameConfig, watch: Option<&'w mut dyn Watcher>) -> Self {
        let clocks = config.time_controls.iter().map(Clock::new).collect();
        Referee {
            game,
            info,
            config,
            watch,
            last_seen: Vec::new(),
            clocks,
            plies: Vec::new(),
            used_total_ms: 0,
            adjudicate_args: match &config.adjudication.tablebases {
                Some(tb) => Some(serde_json::json!({ "tablebases": tb })),
                None => config.adjudication.plugin.then(|| serde_json::json!({})),
            },
        }
    }

    /// Hands the watcher, if any, each player's and the spectator's view.
    fn show(&mut self, players: usize, result: Option<GameResult>) {
        let last = result.is_some();
        if self.watch.as_mut().is_some_and(|w| w.wants(last)) {
            self.frame(players, result);
        }
    }

    /// Hands the watcher each player's and the spectator's view.
    fn frame(&mut self, players: usize, result: Option<GameResult>) {
        let viewers = Seat::all(players).map(Seat::viewer).chain([Viewer::Spectator]);
        let views = viewers
            .enumerate()
            .filter_map(|(i, viewer)| {
                let observation = self.game.observe(viewer).ok()?;
                Some(LiveView { viewer, observation, last_move: self.last_seen.get(i).cloned() })
            })
            .collect();
        let frame = LiveFrame {
            ply: self.plies.len() as u32,
            to_move: Seat::new(self.game.to_move()),
            views,
            clocks: self.clocks.iter().map(Clock::remaining_ms).collect(),
            result,
        };
        if let Some(watch) = self.watch.as_mut() {
            watch.frame(frame);
        }
    }

    fn hidden(&self) -> bool {
        self.info.capabilities.hidden_information
    }

    /// `player` loses (two-player games): the other side wins.
    fn loss(&self, player: Seat, termination: Termination) -> GameResult {
        if self.info.players.len() == 2 {
            end(player.opponent().wins(), termination)
        } else {
            end(Outcome::Draw, termination)
        }
    }

    fn run(&mut self, players: &mut [Box<dyn Player>]) -> GameResult {
        for (seat, p) in Seat::all(players.len()).zip(players.iter_mut()) {
            let observation = match self.game.observe(seat.viewer()) {
                Ok(o) => o,
                Err(e) => return plugin_failure(e),
            };
            let start =
                Start { player: seat, info: self.info, observation, state: (!self.hidden()).then_some(&self.game) };
            if let Err(e) = p.new_game(&start) {
                return self.failed(seat, e, None);
            }
        }
        if self.config.pin_seats {
            pin_seats(players);
        }
        self.show(players.len(), None);
        let mut moves = MoveBuf::new();
        loop {
            if let Some(result) = self.check_end() {
                return result;
            }
            let player = Seat::new(self.game.to_move());
            if let Err(e) = self.game.legal_moves(&mut moves) {
                return plugin_failure(e);
            }
            if moves.is_empty() {
                return void(Termination::PluginContract(format!(
                    "the game is ongoing but player {player} has no legal move"
                )));
            }
            let Some(mover) = players.get_mut(player.index()) else {
                return void(Termination::PluginContract(format!("player {player} to move does not exist")));
            };
            let tc = &self.config.time_controls[player.index()];
            let clock = &self.clocks[player.index()];
            let turn = Turn::new(
                &self.game,
                self.hidden(),
                player,
                &moves,
                self.clocks.iter().map(Clock::turn_time).collect(),
                tc,
                clock.budget_ms().map(|b| b + self.config.margin_ms),
                self.plies.len() as u32,
            );
            let t0 = Instant::now();
            let virtual_clock = mover.on_virtual_clock();
            let mut reply = mover.choose(&turn);
            let mut offered = false;
            while let Ok(Reply { answer: Answer::OfferDraw, .. }) = reply {
                // One offer a turn; a repeated one is declined unasked.
                if !offered && self.draw_agreed(players, player) {
                    return end(Outcome::Draw, Termination::DrawAgreed);
                }
                offered = true;
                reply = players[player.index()].choose(&turn);
            }
            // A player on a virtual clock is charged its own count of its
            // work, never the real time; its flag fell when the budget (with
            // the margin) was spent.
            let used_us = match &reply {
                Ok(Reply { clock_us: Some(us), .. }) => *us,
                Err(PlayerError::Timeout) if virtual_clock => turn.budget_ms().unwrap_or(0) * 1000,
                // Work it did not count (an only move, a fault) took none.
                _ if virtual_clock => 0,
                _ => t0.elapsed().as_micros() as u64,
            };
            let used_ms = used_us / 1000;
            let overrun_ms = self.clocks[player.index()].budget_ms().map(|b| used_ms.saturating_sub(b));
            let reply = match reply {
                Ok(r) => r,
                Err(e) => return self.failed(player, e, overrun_ms),
            };
            let Reply { answer, .. } = reply;
            let illegal = |what: String| Termination::IllegalMove(what);
            let mv = match answer {
                Answer::Resign => return self.loss(player, Termination::Resignation),
                Answer::OfferDraw => unreachable!("offers are answered above"),
                Answer::ClaimDraw => match self.game.status().claimable {
                    "" => return self.loss(player, illegal("a draw claim with nothing to claim".into())),
                    claim => return end(Outcome::Draw, Termination::DrawClaimed(claim.to_string())),
                },
                Answer::Move(mv) if moves.contains(&mv) => mv,
                Answer::Move(mv) => return self.loss(player, illegal(format!("id {mv:#x}"))),
                Answer::Text(text) => match self.game.parse_move(&text) {
                    Ok(mv) if moves.contains(&mv) => mv,
                    Ok(_) => return self.loss(player, illegal(text)),
                    Err(e) if matches!(e.kind, ErrorKind::IllegalMove | ErrorKind::BadNotation) => {
                        return self.loss(player, illegal(text))
                    }
                    // The plugin failed to read the move (a panic, a fault,
                    // an answer its contract does not allow): its fault.
                    Err(e) => {
                        let e = Error::new(e.kind, format!("reading player {player}'s move '{text}': {e}"));
                        tracing::warn!("{}: {e}", self.info.id);
                        return plugin_failure(e);
                    }
                },
            };
            match self.clocks[player.index()].charge(used_ms, self.config.margin_ms) {
                Ok(gift) => {
                    for (q, c) in Seat::all(self.clocks.len()).zip(self.clocks.iter_mut()) {
                        if q != player {
                            c.credit(gift);
                        }
                    }
                }
                Err(_) => return self.flag(player, overrun_ms),
            }
            self.used_total_ms += used_ms;
            let said = Reply { answer: Answer::Move(mv), ..reply };
            if let Err(e) = self.play(players, player, used_us, &said) {
                return plugin_failure(e);
            }
        }
    }

    fn play(&mut self, players: &mut [Box<dyn Player>], player: Seat, used_us: u64, said: &Reply) -> Result<(), Error> {
        let Answer::Move(mv) = said.answer else { unreachable!("a played move is an id") };
        let text = self.game.move_text(mv, Viewer::Referee)?;
        let hidden = self.hidden();
        // Everyone sees a perfect-information game's moves as the referee does.
        let seen_by = |game: &Game, viewer: Viewer| match hidden {
            true => game.move_text(mv, viewer),
            false => Ok(text.clone()),
        };
        let views: Vec<String> =
            Seat::all(players.len()).map(|q| seen_by(&self.game, q.viewer())).collect::<Result<_, _>>()?;
        // Only a frame needs the move as the spectator saw it.
        let framed = self.watch.as_mut().is_some_and(|w| w.wants(false));
        let spectator = framed.then(|| seen_by(&self.game, Viewer::Spectator)).transpose()?;
        let coordinates = if hidden { None } else { self.coordinates(mv) };
        // Players are told before the move is applied: a perfect-information
        // game's state before it is the game itself, not a copy. (If the
        // plugin then fails to apply it, the game ends void.)
        let before = (!hidden).then_some((&self.game, mv));
        // Each view goes to its player, and back if a frame will show it.
        let mut shown = Vec::new();
        for (p, text) in players.iter_mut().zip(views) {
            let seen = Seen { player, text, coordinates: coordinates.as_deref(), before };
            p.notify(&seen);
            if spectator.is_some() {
                shown.push(seen.text);
            }
        }
        self.game.apply(mv)?;
        let clock_ms = self.clocks[player.index()].remaining_ms();
        self.plies.push(PlyRecord {
            player,
            mv,
            text,
            coordinates,
            used_us,
            reported_ms: said.reported_ms,
            clock_ms,
            score: said.score,
            depth: said.depth,
            nodes: said.nodes,
            seldepth: said.seldepth,
            pv: said.pv.clone(),
            ponder_hit: said.ponder_hit,
        });
        if let (Some(watch), Some(ply)) = (self.watch.as_mut(), self.plies.last()) {
            watch.ply(ply);
        }
        if let Some(spectator) = spectator {
            shown.push(spectator);
            self.last_seen = shown;
        }
        if framed {
            self.frame(players.len(), None);
        }
        Ok(())
    }

    /// `mv` in engine coordinates, if the variant offers them (its
    /// `uci_move` call; asked only of perfect-information games).
    fn coordinates(&mut self, mv: u64) -> Option<String> {
        self.game.uci_move(mv)
    }

    /// Whether every player but `from` accepts `from`'s draw offer.
    fn draw_agreed(&self, players: &mut [Box<dyn Player>], from: Seat) -> bool {
        Seat::all(players.len()).zip(players.iter_mut()).filter(|(q, _)| *q != from).all(|(_, p)| p.accepts_draw(from))
    }

    /// A flag fell, `overrun_ms` past the clock: a loss, or a draw if the
    /// opponent cannot win.
    fn flag(&self, player: Seat, overrun_ms: Option<u64>) -> GameResult {
        let others_can_win =
            Seat::all(self.info.players.len()).filter(|&q| q != player).any(|q| self.game.can_win(q.number()));
        if others_can_win {
            self.loss(player, Termination::TimeForfeit(overrun_ms))
        } else {
            end(Outcome::Draw, Termination::TimeForfeitInsufficientMaterial)
        }
    }

    /// `player` failed to move (`overrun_ms` past its clock, if it has
    /// one): its loss, unless the plugin it was calling failed (then the
    /// game is void).
    fn failed(&self, player: Seat, e: PlayerError, overrun_ms: Option<u64>) -> GameResult {
        match e {
            PlayerError::Timeout => self.flag(player, overrun_ms),
            PlayerError::Crashed(d) => self.loss(player, Termination::EngineCrashed(d)),
            PlayerError::Protocol(d) => self.loss(player, Termination::EngineProtocol(d)),
            PlayerError::Hung(d) => self.loss(player, Termination::EngineHung(d)),
            PlayerError::Plugin(e) => plugin_failure(e),
        }
    }

    fn check_end(&mut self) -> Option<GameResult> {
        let status = self.game.status();
        match status.outcome {
            Outcome::Ongoing => {}
            // Every earlier failure ended the game where it happened, so the
            // state faulted in this call (whose answer carries no message).
            Outcome::Faulted => {
                let why = format!("plugin {} panicked in status (or its state faulted there)", self.info.id);
                tracing::warn!("{why}");
                return Some(void(Termination::PluginCrashed(why)));
            }
            outcome => return Some(end(outcome, Termination::Rules(status.reason.to_string()))),
        }
        if self.config.claim_draws && !status.claimable.is_empty() {
            return Some(end(Outcome::Draw, Termination::DrawClaimed(status.claimable.to_string())));
        }
        match self.config.adjudication.judge(&self.plies) {
            Some(adjudication::Adjudged::Resign { loser, reason }) => {
                return Some(self.loss(loser, Termination::Adjudication(reason)))
            }
            Some(adjudication::Adjudged::Draw(reason)) => {
                return Some(end(Outcome::Draw, Termination::Adjudication(reason)))
            }
            None => {}
        }
        if self.adjudicate_args.is_some() {
            match self.plugin_adjudication() {
                Ok(Some(result)) => return Some(result),
                Ok(None) => {}
                Err(e) => return Some(plugin_failure(e)),
            }
        }
        if self.config.max_plies.is_some_and(|m| self.plies.len() as u32 >= m) {
            return Some(end(Outcome::Draw, Termination::Adjudication("ply limit".into())));
        }
        let cap = self.config.time_controls.iter().filter_map(|tc| tc.cap_ms).min();
        if cap.is_some_and(|c| self.used_total_ms >= c) {
            return Some(end(Outcome::Draw, Termination::Adjudication("game time cap".into())));
        }
        None
    }
}

impl Referee<'_, '_> {
    /// The plugin's own adjudication (its `adjudicate` call): `null` plays
    /// on; `{"outcome": "draw" | {"win": PLAYER}, "reason": TEXT}` ends the
    /// game as adjudicated. A plugin that does not offer the call is not
    /// asked again; an answer of another shape breaks the contract.
    fn plugin_adjudication(&mut self) -> Result<Option<GameResult>, Error> {
        let Some(args) = &self.adjudicate_args else { return Ok(None) };
        let answer = match self.game.call_json("adjudicate", args) {
            Err(e) if e.kind == arbiter_api::ErrorKind::Unsupported => {
                if self.config.adjudication.tablebases.is_some() {
                    tracing::warn!("{}: no tablebase adjudication ({e})", self.info.id);
                }
                self.adjudicate_args = None;
                return Ok(None);
            }
            answer => answer?,
        };
        if answer.is_null() {
            return Ok(None);
        }
        // Any kind but a panic or a fault reads as a contract violation.
        let contract =
            |why: &str| Error::new(arbiter_api::ErrorKind::BadOptions, format!("adjudicate: {why}: {answer}"));
        let reason = answer["reason"].as_str().filter(|r| !r.trim().is_empty()).ok_or_else(|| contract("no reason"))?;
        let seats = self.info.players.len();
        let outcome = match &answer["outcome"] {
            serde_json::Value::String(d) if d == "draw" => Outcome::Draw,
            o => match o["win"].as_u64().and_then(|p| usize::try_from(p).ok()).filter(|&p| p < seats) {
                Some(p) => Seat::at(p).wins(),
                None => return Err(contract("the outcome must be \"draw\" or {\"win\": PLAYER}")),
            },
        };
        Ok(Some(end(outcome, Termination::Adjudication(format!("{} (the plugin's adjudication)", reason.trim())))))
    }
}

/// A plugin call failed: a panic or faulted state is a crash, any other
/// error on a call the host made in good faith breaks the contract.
fn plugin_failure(e: Error) -> GameResult {
    match e.kind {
        arbiter_api::ErrorKind::Panic | arbiter_api::ErrorKind::Faulted => {
            void(Termination::PluginCrashed(e.to_string()))
        }
        _ => void(Termination::PluginContract(e.to_string())),
    }
}

#[cfg(test)]
mod tests;
