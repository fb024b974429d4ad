//! What a seat at a game sees and answers: the types the referee and the
//! players share. The referee hands a player a [`Turn`] (its own view, legal
//! moves and clock), a [`Start`] and [`Seen`] moves; the player answers with a
//! [`Reply`] or a [`PlayerError`]. Neither side imports the other.

use std::time::Instant;

use arbiter_api::host::Game;
use arbiter_api::schema::{Observation, VariantInfo};
use arbiter_api::Error;

use crate::clock::{TimeControl, TurnTime};
use crate::model::Seat;
use crate::process::ProcessError;
use crate::verdict::GameResult;

/// What a player may see when asked to move: its own observation, its legal
/// moves (which depend only on its own information), its clock, and for
/// perfect-information variants the state itself. Nothing else leaves the referee.
pub struct Turn<'a> {
    game: &'a Game,
    hidden: bool,
    player: Seat,
    moves: &'a [u64],
    clocks: Vec<TurnTime>,
    tc: &'a TimeControl,
    budget_ms: Option<u64>,
    ply: u32,
}

impl<'a> Turn<'a> {
    /// The referee's question to `player`. Its fields stay private: a player
    /// reaches the state only through [`Turn::state`], for perfect information.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: &'a Game,
        hidden: bool,
        player: Seat,
        moves: &'a [u64],
        clocks: Vec<TurnTime>,
        tc: &'a TimeControl,
        budget_ms: Option<u64>,
        ply: u32,
    ) -> Self {
        Turn { game, hidden, player, moves, clocks, tc, budget_ms, ply }
    }

    /// The player being asked.
    pub fn player(&self) -> Seat {
        self.player
    }
    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// The legal moves of this player.
    pub fn legal_moves(&self) -> &[u64] {
        self.moves
    }
    /// What this player may know of the game.
    pub fn observe(&self) -> Result<Observation, Error> {
        self.game.observe(self.player.viewer())
    }
    /// A move as this player sees it.
    pub fn move_text(&self, mv: u64) -> Result<String, Error> {
        self.game.move_text(mv, self.player.viewer())
    }
    /// A full state consistent with what this player knows, drawn with `seed`
    /// (for perfect-information variants, a copy of the state).
    pub fn sample_world(&self, seed: u64) -> Result<Game, Error> {
        self.game.sample_world(self.player.viewer(), seed)
    }
    /// The state itself, only for perfect-information variants.
    pub fn state(&self) -> Option<&Game> {
        (!self.hidden).then_some(self.game)
    }
    /// Clock figures of the player on `seat` as engines are told them.
    pub fn clock(&self, seat: Seat) -> TurnTime {
        self.clocks.get(seat.index()).copied().unwrap_or_default()
    }
    /// The most this player may think before its flag falls (`None`: no limit).
    pub fn budget_ms(&self) -> Option<u64> {
        self.budget_ms
    }
    /// Parses a move of this player in the variant's notation.
    pub fn parse_move(&self, text: &str) -> Result<u64, Error> {
        self.game.parse_move(text)
    }
    /// The draw this player could claim now ("threefold repetition"), or "".
    pub fn claimable(&self) -> &'static str {
        self.game.status().claimable
    }
    /// For each legal move (in [`Turn::legal_moves`] order), the board cells
    /// it touches, when the plugin tells (the kit's `Game::move_cells`).
    pub fn move_cells(&self) -> Vec<Option<Vec<u32>>> {
        let args = serde_json::json!({ "moves": self.moves });
        let answer = self.game.clone().call_json("move_cells", &args).unwrap_or_default();
        let cells = |v: &serde_json::Value| -> Option<Vec<u32>> {
            v.as_array()?.iter().map(|c| c.as_u64().map(|c| c as u32)).collect()
        };
        (0..self.moves.len()).map(|i| cells(&answer[i])).collect()
    }
    /// This player's time control (node and depth limits live there).
    pub fn time_control(&self) -> &TimeControl {
        self.tc
    }
}

/// What a player is told at the start of a game.
pub struct Start<'a> {
    /// The player's seat.
    pub player: Seat,
    /// The variant's info card.
    pub info: &'a VariantInfo,
    /// The player's observation of the start.
    pub observation: Observation,
    /// The start state, only for perfect-information variants.
    pub state: Option<&'a Game>,
}

/// What a player is told of each move, as it is played (before the
/// referee applies it to the game).
pub struct Seen<'a> {
    /// Who moved.
    pub player: Seat,
    /// The move as this viewer sees it.
    pub text: String,
    /// The move in engine coordinates (`e2e4`), for perfect-information
    /// variants that offer them.
    pub coordinates: Option<&'a str>,
    /// The state before the move and the move id, only for perfect-information variants.
    pub before: Option<(&'a Game, u64)>,
}

/// What a player answers when asked to move.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A move id from the turn's legal moves.
    Move(u64),
    /// A move in the variant's notation (engines answer this way).
    Text(String),
    /// The player resigns.
    Resign,
    /// The player claims the draw the position offers (threefold, 50 moves).
    ClaimDraw,
    /// The player offers a draw; the others are asked ([`Player::accepts_draw`])
    /// and, unless all accept, the player is asked for its move again.
    OfferDraw,
}

/// An answer with what the player reported about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The answer.
    pub answer: Answer,
    /// Thinking time the player reported (engines), in ms.
    pub reported_ms: Option<u64>,
    /// The player's evaluation, from its own side, if reported.
    pub score: Option<i32>,
    /// The depth of its search, if reported.
    pub depth: Option<u32>,
    /// The nodes it searched, if reported.
    pub nodes: Option<u64>,
    /// The selective depth of its search, if reported.
    pub seldepth: Option<u32>,
    /// Its principal variation, in its protocol's move notation, if reported.
    pub pv: Option<String>,
    /// Whether it had pondered on the move the opponent then played (a
    /// ponder hit) or on another (a miss); `None` if it did not ponder.
    pub ponder_hit: Option<bool>,
    /// The move's time on the player's own virtual clock, in µs (sandboxed
    /// engines and built-in players count their work): the referee charges
    /// it instead of the wall clock's.
    pub clock_us: Option<u64>,
}

impl Reply {
    /// An answer, nothing reported.
    pub fn answer(answer: Answer) -> Reply {
        Reply {
            answer,
            reported_ms: None,
            score: None,
            depth: None,
            nodes: None,
            seldepth: None,
            pv: None,
            ponder_hit: None,
            clock_us: None,
        }
    }

    /// A plain move id, nothing reported.
    pub fn mv(mv: u64) -> Reply {
        Reply::answer(Answer::Move(mv))
    }
}

/// Why a player failed to produce a move. Each becomes the game's
/// termination, and says who is to blame: the player, or (for
/// [`PlayerError::Plugin`]) the plugin it was calling.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// No answer before its clock ran out.
    #[error("time forfeit")]
    Timeout,
    /// The engine process exited or could not be started.
    #[error("engine crashed: {0}")]
    Crashed(String),
    /// The engine broke its protocol (a garbage line where an answer was due,
    /// a missing handshake, a line over the length cap).
    #[error("engine protocol error: {0}")]
    Protocol(String),
    /// The engine gave no answer within its hang limit, with no clock running.
    #[error("engine hung: {0}")]
    Hung(String),
    /// A call into the plugin failed while the player was using it (a
    /// searching player's playouts): the plugin's fault, not the player's.
    #[error("plugin failed: {0}")]
    Plugin(arbiter_api::Error),
}

impl From<ProcessError> for PlayerError {
    fn from(e: ProcessError) -> PlayerError {
        match e {
            ProcessError::Timeout => PlayerError::Timeout,
            ProcessError::LineTooLong { .. } => PlayerError::Protocol(e.to_string()),
            ProcessError::Start { .. } | ProcessError::Exited { .. } => PlayerError::Crashed(e.to_string()),
        }
    }
}

/// How long an engine may take over a move: its clock's budget, or without
/// one, its hang limit (the time control's `hang=`, else
/// [`crate::clock::DEFAULT_HANG_MS`]).
#[derive(Clone, Copy, Debug)]
pub struct MoveWait {
    /// When the answer is due.
    pub deadline: Instant,
    /// The limit in ms.
    pub limit_ms: u64,
    /// Whether a clock set it (past it: time forfeit) or the hang limit (engine hung).
    pub clocked: bool,
}

impl MoveWait {
    /// The wait for the move `turn` asks for.
    pub fn of(turn: &Turn<'_>) -> MoveWait {
        let (limit_ms, clocked) = match turn.budget_ms() {
            Some(b) => (b, true),
            None => (turn.time_control().hang_ms.unwrap_or(crate::clock::DEFAULT_HANG_MS), false),
        };
        MoveWait { deadline: crate::process::deadline_after(limit_ms), limit_ms, clocked }
    }

    /// What running past the wait means: a time forfeit on a clock, a hung
    /// engine without one; other errors pass through.
    pub fn blame(&self, e: PlayerError) -> PlayerError {
        match e {
            PlayerError::Timeout if !self.clocked => PlayerError::Hung(format!(
                "no move within {} s with no clock running (set the time control's hang=SECONDS)",
                crate::clock::fmt_secs(self.limit_ms)
            )),
            e => e,
        }
    }
}

/// Something that plays games.
pub trait Player: Send {
    /// A short name for records and standings.
    fn name(&self) -> String;

    /// The name an engine gave itself (UCI `id name`, xboard `myname`, Hub
    /// `id name`, JSON-lines `ready` name), once it has said one.
    fn engine_name(&self) -> Option<String> {
        None
    }

    /// A new game starts; `start` is what this player may see of it.
    fn new_game(&mut self, _start: &Start<'_>) -> Result<(), PlayerError> {
        Ok(())
    }

    /// Takes `options` (its spec's `option.NAME=VALUE`s) for the games to
    /// come in place of those it was made with, keeping its engine process:
    /// whether it can. An engine whose protocol sets options between games
    /// (UCI `setoption`, xboard `option`; a JSON-lines engine that said
    /// `set_options`) is told them before its next game; other players say
    /// no and a new one is made (how a tune's next pair reuses its engines).
    fn take_options(&mut self, _options: &[(String, String)]) -> bool {
        false
    }

    /// Pins the player's engine process, if it has one, to `cpu` (with
    /// `--affinity` and a pondering engine, each seat's engine gets a CPU
    /// of its own, so that one pondering never slows the other).
    fn pin_to_cpu(&mut self, _cpu: usize) -> Result<(), crate::process::AffinityError> {
        Ok(())
    }

    /// Chooses a move.
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError>;

    /// A move was played (by anyone); `seen` is what this player may see
    /// of it. Told before the referee applies it: the game ends void if
    /// the plugin then fails to.
    fn notify(&mut self, _seen: &Seen<'_>) {}

    /// Whether this player accepts the draw `from` offers. Default: declines
    /// (the built-in players and engines play on).
    fn accepts_draw(&mut self, _from: Seat) -> bool {
        false
    }

    /// The game is over; `me` is this player's seat.
    fn game_over(&mut self, _result: &GameResult, _me: Seat) {}

    /// Whether the player's time is its own work on a virtual clock (every
    /// [`Reply`] carries `clock_us`, its flag falls as
    /// [`PlayerError::Timeout`] when its budget is spent), the same on any
    /// machine.
    fn on_virtual_clock(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::{MoveWait, PlayerError};
    use crate::process::ProcessError;

    #[test]
    fn a_process_failure_becomes_the_player_s_fault_it_is() {
        let exited = ProcessError::Exited { command: "sf".into(), status: "signal 9".into() };
        assert!(matches!(PlayerError::from(exited), PlayerError::Crashed(m) if m.contains("signal 9")));
        let long = ProcessError::LineTooLong { command: "sf".into(), limit: 10 };
        assert!(matches!(PlayerError::from(long), PlayerError::Protocol(_)));
        assert!(matches!(PlayerError::from(ProcessError::Timeout), PlayerError::Timeout));
        let start = ProcessError::Start { command: "nope".into(), reason: "not found".into() };
        assert!(PlayerError::from(start).to_string().starts_with("engine crashed: "));
    }

    #[test]
    fn running_past_a_clock_is_a_time_forfeit_and_past_the_hang_limit_a_hung_engine() {
        let wait = |clocked| MoveWait { deadline: Instant::now() + Duration::from_secs(1), limit_ms: 2500, clocked };
        assert!(matches!(wait(true).blame(PlayerError::Timeout), PlayerError::Timeout));
        let hung = wait(false).blame(PlayerError::Timeout).to_string();
        assert!(hung.starts_with("engine hung: no move within 2.5 s with no clock running"), "{hung}");
        let other = wait(false).blame(PlayerError::Protocol("bad line".into())).to_string();
        assert_eq!(other, "engine protocol error: bad line", "other errors pass through");
    }
}
