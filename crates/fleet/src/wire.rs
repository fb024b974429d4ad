//! The worker API's messages: what `arbiter worker --server URL` and the
//! coordinator (`arbiter serve`, [`crate::coordinator`]) say to each other,
//! as JSON over HTTPS. Every request carries the worker's token as
//! `Authorization: Bearer ...`; every path is under [`API`].
//!
//! | request | body | answer |
//! |---|---|---|
//! | `POST /api/worker/claim` | [`ClaimRequest`] | [`ClaimResponse`] |
//! | `POST /api/worker/heartbeat` | [`Held`] | `{}` |
//! | `POST /api/worker/release` | [`Held`] | `{}` |
//! | `POST /api/worker/upload` | [`Upload`] | [`UploadResponse`] |
//! | `GET /api/worker/pins` | | [`PinsResponse`] |
//! | `GET /api/worker/plugins/{sha256}` | | the file's bytes |
//!
//! A refused request answers 4xx with `{"error": "one line"}`: 401 for a
//! token that is missing, unknown or revoked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use arbiter_core::model::GameRecord;
use arbiter_play::record::{EventInfo, TournamentSlot};
use arbiter_store::QueuedGame;
use arbiter_tournament::error::Result;
use arbiter_tournament::pins::PluginPin;
use arbiter_tournament::worker::Job;

/// Where the worker API's paths start.
pub const API: &str = "/api/worker";

/// A game of a tournament, named by its tournament and schedule index.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameKey {
    /// Its tournament.
    pub tournament: i64,
    /// Its index in the tournament's schedule.
    pub index: u32,
    /// A game stored already, given to a second worker to play again and
    /// compare (its players are deterministic); not stored again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check: bool,
}

/// A worker slot asks for games.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ClaimRequest {
    /// The slot, as the worker names it (`host:pid#slot`); the coordinator
    /// puts the token's name in front.
    pub slot: String,
    /// Only this tournament's games.
    pub tournament: Option<i64>,
    /// None of these tournaments' games (the worker may not play them).
    #[serde(default)]
    pub skip: Vec<i64>,
    /// The most games wanted.
    pub most: usize,
}

/// What a worker slot is given.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ClaimResponse {
    /// The name the claims are held under (the token's name, then the slot).
    pub holder: String,
    /// How long the claims last without a heartbeat, in ms.
    pub lease_ms: u64,
    /// The games, all of one tournament (none: see `queue`).
    pub games: Vec<ClaimedGame>,
    /// What the builds playing them must be: the tournament's pins.
    pub pins: Option<TournamentPins>,
    /// With no games: why, so that the worker knows when to ask again.
    pub queue: QueueState,
}

/// One claimed game.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct ClaimedGame {
    /// Which game.
    pub key: GameKey,
    /// The event name its record carries.
    pub event: String,
    /// Its round.
    pub round: u32,
    /// Its colour-swapped pair, if any.
    pub pair: Option<u32>,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
    /// The job to play.
    pub job: Job,
}

/// The builds a tournament was registered with.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TournamentPins {
    /// Each variant's plugin.
    pub plugins: BTreeMap<String, PluginPin>,
    /// Each engine named by a path, by entrant name.
    pub engines: BTreeMap<String, PluginPin>,
}

/// The queue as a worker with nothing claimed sees it.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum QueueState {
    /// Games were claimed.
    Claimed,
    /// Other workers are playing the last games: ask again soon.
    InFlight,
    /// Nothing to play now.
    Empty,
    /// The tournament asked for is finished.
    Finished,
}

/// Claims a worker slot holds (a heartbeat renews them, a release gives
/// them back).
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Held {
    /// The holder the claims were given under.
    pub holder: String,
    /// The games.
    pub games: Vec<GameKey>,
}

/// Finished games, for the coordinator to verify and store.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Upload {
    /// The holder the games were claimed under.
    pub holder: String,
    /// The games, all of one tournament.
    pub games: Vec<UploadedGame>,
}

/// One finished game.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct UploadedGame {
    /// Which game.
    pub key: GameKey,
    /// Its record, whole.
    pub record: GameRecord,
    /// The builds it was played with: the variant's plugin, and each engine
    /// named by a path, by entrant name.
    pub pins: TournamentPins,
}

/// What became of each uploaded game, in upload order.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct UploadResponse {
    /// One verdict a game.
    pub verdicts: Vec<Verdict>,
}

/// What became of one uploaded game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Verified and stored.
    Stored,
    /// Stored already, from this worker's earlier upload of it (a resend
    /// whose answer was lost) or named earlier in the same upload: nothing
    /// is stored or counted again.
    AlreadyStored,
    /// Another worker's result was stored first; this one is discarded.
    Duplicate,
    /// A game played again ([`GameKey::check`]) that equals the stored one.
    Agrees,
    /// Refused: why. The game goes back to the queue for another worker.
    Refused(String),
    /// Verified, but its result rests on this worker's word (a
    /// resignation, an engine's crash...): kept, and counted once another
    /// worker's game of it ends alike (or the operator accepts it); why.
    Unconfirmed(String),
}

/// The pins of the unfinished tournaments, for a worker to fetch the
/// WebAssembly plugins it lacks before it loads its plugins.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct PinsResponse {
    /// Per tournament id.
    pub tournaments: BTreeMap<i64, TournamentPins>,
}

impl ClaimedGame {
    /// The game as the queue holds it (its job read back from its text).
    pub fn of_queued(g: QueuedGame) -> Result<ClaimedGame> {
        Ok(ClaimedGame {
            job: crate::queue::job_of(&g)?,
            key: GameKey { tournament: g.tournament, index: g.index, check: false },
            event: g.event,
            round: g.round,
            pair: g.pair,
            seats: g.seats,
        })
    }

    /// The event its record belongs to.
    pub fn event_info(&self) -> EventInfo {
        EventInfo {
            event: self.event.clone(),
            round: self.round,
            tournament: Some(TournamentSlot {
                id: self.key.tournament,
                index: self.key.index,
                pair: self.pair,
                seats: self.seats.clone(),
            }),
        }
    }
}
