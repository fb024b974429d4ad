//! `human`: a person at the terminal. Shows the board as the plugin renders
//! it for this player, the clocks, and reads moves in the variant's notation,
//! plus `help`, `moves`, `resign` and `draw` (claims a draw when one is claimable).

use arbiter_core::sync::LockExt;
use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use super::{Answer, KindSpec, Player, PlayerError, PlayerKind, Reply};
use arbiter_core::clock::fmt_secs;
use arbiter_core::model::Seat;
use arbiter_core::seat::{Seen, Start, Turn};

/// A human player on stdin/stdout.
pub struct HumanPlayer {
    names: Vec<String>,
}

impl HumanPlayer {
    /// A human player.
    pub fn new() -> Self {
        HumanPlayer { names: Vec::new() }
    }
}

impl Default for HumanPlayer {
    fn default() -> Self {
        Self::new()
    }
}

/// The terminal's lines, read by a thread of their own so that a move can be
/// waited for with a deadline (`None` once stdin is closed).
fn terminal_lines() -> &'static Mutex<Receiver<Option<String>>> {
    static LINES: OnceLock<Mutex<Receiver<Option<String>>>> = OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                if tx.send(Some(line.unwrap_or_default())).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        Mutex::new(rx)
    })
}

fn clock_text(ms: Option<u64>) -> String {
    ms.map(|ms| format!("{}s", fmt_secs(ms / 100 * 100))).unwrap_or_else(|| "-".into())
}

/// Writes to the person's terminal; a closed output is not an error here
/// (the person has gone: the next read of their input ends the game).
fn show(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(args).and_then(|()| out.flush());
}

macro_rules! show {
    ($($arg:tt)*) => { show(format_args!($($arg)*)) };
}

macro_rules! showln {
    ($($arg:tt)*) => { show(format_args!("{}\n", format_args!($($arg)*))) };
}

impl Player for HumanPlayer {
    fn name(&self) -> String {
        "human".into()
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.names = start.info.players.clone();
        showln!(
            "New game of {}. You play {}.",
            start.info.name,
            self.names.get(start.player.index()).map(String::as_str).unwrap_or("?")
        );
        showln!("Moves: {}. Type 'help' for commands.", start.info.notation);
        Ok(())
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        let who = self.names.get(seen.player.index()).map(String::as_str).unwrap_or("?");
        showln!("{who} played {}", seen.text);
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let obs = turn.observe().map_err(PlayerError::Plugin)?;
        show(format_args!(
            "
"
        ));
        show!("{}", obs.text);
        let clocks: Vec<String> = self
            .names
            .iter()
            .zip(Seat::all(self.names.len()))
            .map(|(n, seat)| format!("{n} {}", clock_text(turn.clock(seat).remaining_ms)))
            .collect();
        showln!("Clocks: {}", clocks.join("  "));
        let lines = terminal_lines().lock_or_recover();
        let deadline = turn.budget_ms().map(arbiter_core::process::deadline_after);
        loop {
            show!("Your move> ");
            let _ = std::io::stdout().flush();
            let wait = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let line = match wait
                .map_or_else(|| lines.recv().map_err(|_| RecvTimeoutError::Disconnected), |w| lines.recv_timeout(w))
            {
                Ok(Some(line)) => line,
                // The input closed: the person has left the game.
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Ok(Reply::answer(Answer::Resign)),
                Err(RecvTimeoutError::Timeout) => {
                    show(format_args!(
                        "
"
                    ));
                    showln!("Your flag fell.");
                    return Err(PlayerError::Timeout);
                }
            };
            let line = line.trim();
            match line {
                "" => continue,
                "help" => {
                    showln!("Enter a move, or: moves (list legal moves), resign, draw (claim a claimable draw), help")
                }
                "moves" => {
                    let texts: Vec<String> =
                        turn.legal_moves().iter().filter_map(|&m| turn.move_text(m).ok()).collect();
                    showln!("{}", texts.join(" "));
                }
                "resign" => return Ok(Reply::answer(Answer::Resign)),
                "draw" => match turn.claimable() {
                    "" => showln!("There is no draw to claim in this position."),
                    _ => return Ok(Reply::answer(Answer::ClaimDraw)),
                },
                text => {
                    let legal = turn.legal_moves();
                    match turn.parse_move(text) {
                        Ok(mv) if legal.contains(&mv) => return Ok(Reply::mv(mv)),
                        Ok(_) => showln!("'{text}' is not legal here; type 'moves' to list the legal moves"),
                        Err(e) => showln!("{e}"),
                    }
                }
            }
        }
    }
}

/// `human`: a person at this terminal.
pub const KIND: PlayerKind = PlayerKind {
    name: "human",
    example: "human",
    runs_a_program: false,
    parse: |rest| match rest.trim() {
        "" => Ok(Box::new(HumanSpec)),
        _ => Err(super::SettingError::NoneTaken("human")),
    },
};

/// A person's spec.
#[derive(Debug)]
struct HumanSpec;

impl KindSpec for HumanSpec {
    fn create(&self, _game_seed: u64) -> Box<dyn Player> {
        Box::new(HumanPlayer::new())
    }

    fn is_person(&self) -> bool {
        true
    }
}
