//! One game's setup, built once, and [`play`], the one way a game is
//! played: the runner's game threads, worker processes (and so queue and
//! remote workers), the web view's games and `arbiter play` all call it.
//! The setup is serialisable, each seat's player spec kept as its text, so
//! that a worker process or a remote worker plays exactly the game planned.

use arbiter_api::host::VariantHandle;
use arbiter_api::Error;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{referee_game, Adjudication, GameConfig, StartFrom, Watcher};
use arbiter_core::clock::TimeControl;
use arbiter_core::model::GameRecord;
use arbiter_core::seat::Player;

/// Who sits in one seat: the name the record gives it, its player spec as
/// text (what `PlayerSpec::parse` reads), and its time control.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatSetup {
    /// The entrant's name.
    pub name: String,
    /// Its player spec.
    pub spec: String,
    /// Its time control.
    pub tc: TimeControl,
}

/// Everything one game is played from: the variant, its options and start,
/// the seats in turn order, the seed of seeded players, the referee's
/// settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSetup {
    /// Variant id.
    pub variant: String,
    /// Variant options.
    pub options: Map<String, Value>,
    /// A start position, or the variant's start.
    pub position: Option<String>,
    /// The seats in turn order.
    pub seats: Vec<SeatSetup>,
    /// Seed for seeded players.
    pub seed: u64,
    /// Overrun tolerated before a flag falls.
    pub margin_ms: u64,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<u32>,
    /// Claim claimable draws at once.
    pub claim_draws: bool,
    /// Score adjudication.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// Pin each seat's engine to a CPU of its own (`--affinity` with a
    /// pondering engine).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pin_seats: bool,
}

impl GameSetup {
    /// The referee's settings for this game.
    pub fn config(&self) -> GameConfig {
        GameConfig {
            time_controls: self.seats.iter().map(|s| s.tc.clone()).collect(),
            margin_ms: self.margin_ms,
            max_plies: self.max_plies,
            claim_draws: self.claim_draws,
            adjudication: self.adjudication.clone(),
            pin_seats: self.pin_seats,
        }
    }

    /// Where the game starts.
    pub fn start(&self) -> StartFrom<'_> {
        self.position.as_deref().map_or(StartFrom::Standard, StartFrom::Position)
    }

    /// Whether every seat's player is on a virtual clock and seeded
    /// (sandboxed engines, built-in players), so that the game played again
    /// anywhere is the same game: its moves, clocks and result.
    pub fn reproducible(&self) -> bool {
        self.seats.iter().all(|s| crate::players::PlayerSpec::parse(&s.spec).is_ok_and(|p| p.repeats_itself(true)))
    }
}

/// Plays `setup` on `variant` between `players` (seated in the setup's
/// order), offering `watch`, if any, each ply and frame: the record, each
/// seat named as the setup names it (the event's names, not the players'
/// kinds).
pub fn play(
    setup: &GameSetup,
    variant: &VariantHandle,
    players: &mut [Box<dyn Player>],
    watch: Option<&mut dyn Watcher>,
) -> Result<GameRecord, Error> {
    let mut record = referee_game(variant, &setup.options, setup.start(), players, &setup.config(), watch)?;
    record.players = setup.seats.iter().map(|s| s.name.clone()).collect();
    Ok(record)
}
