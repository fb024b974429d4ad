//! The browser contract: every answer of the JSON API as a type (the
//! router tests read them back as these types). A field's name is its JSON
//! key; an absent value is `null`.

use arbiter_api::schema::{BoardGeometry, OptionSpec, PieceSet};
use arbiter_core::clock::TimeControl;
use arbiter_core::model::{Seat, SeenFrame};
use arbiter_core::stats::spsa::Param;
use arbiter_store::{GameSummary, LiveGame, WorkerRate};
use arbiter_tournament::pairing::Format;
use arbiter_tournament::rating_list;
use arbiter_tournament::tune::TunePoint;
use serde::{Deserialize, Serialize};

/// `GET /api/variants`: one installed variant.
#[derive(Serialize, Deserialize, Debug)]
pub struct VariantCard {
    /// The variant's id.
    pub id: String,
    /// Its name in words.
    pub name: String,
    /// Its sides, in turn order.
    pub players: Vec<String>,
    /// The board's shape.
    pub board: BoardGeometry,
    /// The piece sets the board may be drawn with.
    pub piece_sets: Vec<PieceSet>,
    /// The move notation.
    pub notation: String,
    /// Whether players see only part of the game.
    pub hidden: bool,
    /// The time control a game gets when none is given.
    pub default_time_control: String,
    /// The variant's options.
    pub options: Vec<OptionSpec>,
}

/// `GET /api/tournaments`: one stored tournament.
#[derive(Serialize, Deserialize, Debug)]
pub struct TournamentItem {
    /// Id in the store.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Whether it has finished.
    pub finished: bool,
    /// Games stored.
    pub games: u64,
}

/// `GET /api/tournaments/{id}`: progress, standings, crosstables, a tune's path.
#[derive(Serialize, Deserialize, Debug)]
pub struct TournamentPage {
    /// Id in the store.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its pairing format.
    pub format: Format,
    /// The variants it plays.
    pub variants: Vec<String>,
    /// The entrants' names.
    pub players: Vec<String>,
    /// Whether it has finished.
    pub finished: bool,
    /// Games stored.
    pub played: usize,
    /// Games it will have played (at least those stored).
    pub expected: usize,
    /// Its queue on a shared store.
    pub queue: QueueView,
    /// Standings overall, then per variant when it plays several.
    pub tables: Vec<StandingsTable>,
    /// A tune's parameters and estimates, for a tune.
    pub tune: Option<TuneView>,
}

/// A tournament's queue on a shared store (all zero and empty for a local run).
#[derive(Serialize, Deserialize, Debug)]
pub struct QueueView {
    /// Games waiting for a worker.
    pub waiting: u64,
    /// Games being played.
    pub playing: u64,
    /// Results kept until a second worker's game agrees or the operator accepts them.
    pub unconfirmed: u64,
    /// Each worker host's games and rate.
    pub workers: Vec<WorkerRate>,
}

/// One standings table and its crosstable.
#[derive(Serialize, Deserialize, Debug)]
pub struct StandingsTable {
    /// `overall`, or the variant's id.
    pub title: String,
    /// The entrants, best first.
    pub rows: Vec<StandingsRow>,
    /// Row entrant's points and games against column entrant (`null`: none played).
    pub cross: Vec<Vec<Option<(f64, u32)>>>,
    /// Colour-swapped pairs not yet finished.
    pub unfinished: u32,
}

/// One entrant's line of a standings table.
#[derive(Serialize, Deserialize, Debug)]
pub struct StandingsRow {
    /// Place, from 1.
    pub rank: usize,
    /// The entrant's index.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Points scored.
    pub points: f64,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Elo against the field.
    pub elo: f64,
    /// Its error bar.
    pub error: f64,
}

/// A tune's parameters and the estimate after each finished pair.
#[derive(Serialize, Deserialize, Debug)]
pub struct TuneView {
    /// Pairs in all.
    pub iterations: u32,
    /// Pairs played at once.
    pub in_flight: u32,
    /// The parameters tuned.
    pub params: Vec<Param>,
    /// Their values at the start.
    pub start: Vec<f64>,
    /// Their values now.
    pub theta: Vec<f64>,
    /// The estimate after each finished pair.
    pub points: Vec<TunePoint>,
}

/// `GET /api/tournaments/{id}/live`: the games in progress as spectators see them.
#[derive(Serialize, Deserialize, Debug)]
pub struct LiveGames {
    /// Games stored so far.
    pub played: u64,
    /// The games in progress.
    pub games: Vec<LiveGame>,
}

/// `GET /api/ratings`: the rating list, a table per variant.
#[derive(Serialize, Deserialize, Debug)]
pub struct Ratings {
    /// Bootstrap resamples behind the error bars.
    pub resamples: u32,
    /// One table per variant.
    pub variants: Vec<rating_list::Table>,
}

/// `GET /api/games`: a page of games.
#[derive(Serialize, Deserialize, Debug)]
pub struct GamePage {
    /// Games the filter matches in all.
    pub total: u64,
    /// This page's games, newest first.
    pub games: Vec<GameSummary>,
}

/// `GET /api/games/{id}`: a stored game replayed for one viewer.
#[derive(Serialize, Deserialize, Debug)]
pub struct Replay {
    /// Id in the store.
    pub id: i64,
    /// The variant's id.
    pub variant: String,
    /// Its name in words.
    pub variant_name: String,
    /// The board's shape.
    pub board: BoardGeometry,
    /// The piece sets the board may be drawn with.
    pub piece_sets: Vec<PieceSet>,
    /// The variant's sides, in turn order.
    pub sides: Vec<String>,
    /// The players' names, in turn order.
    pub players: Vec<String>,
    /// The PGN result.
    pub result: String,
    /// How it ended, in words.
    pub termination: String,
    /// The event.
    pub event: String,
    /// The round.
    pub round: u32,
    /// Each player's time control.
    pub time_controls: Vec<TimeControl>,
    /// The tournament it belongs to, if any.
    pub tournament: Option<i64>,
    /// Whether players saw only part of it.
    pub hidden: bool,
    /// The viewer the frames are for (`spectator`, `player:N`, `referee`).
    pub viewer: String,
    /// Whether other views may be asked for.
    pub can_reveal: bool,
    /// The views that may be asked for.
    pub views: Vec<String>,
    /// The start, then each ply, as the viewer saw them: the frames a live
    /// game sends ([`SeenFrame`]), with who moved and the time it took.
    pub frames: Vec<ReplayFrame>,
}

/// One moment of a replayed game: the frame a live game sends (its
/// fields at the top level), with what the record adds: who moved, the
/// move's text (as `last_move`) and the time it took; none at the start.
#[derive(Serialize, Deserialize, Debug)]
pub struct ReplayFrame {
    /// The frame, as a watcher of the live game saw it.
    #[serde(flatten)]
    pub seen: SeenFrame,
    /// Who played the last move.
    pub mover: Option<Seat>,
    /// The last move's text as the viewer saw it (`last_move` again, the
    /// key replays had before they shared the live frame's shape).
    pub text: Option<String>,
    /// The time it took, in ms.
    pub used_ms: Option<u64>,
}

/// An error, in one line.
#[derive(Serialize, Deserialize, Debug)]
pub struct ErrorAnswer {
    /// What was wrong, and where.
    pub error: String,
}

/// `POST /api/play`: the game made and the seat taken.
#[derive(Serialize, Deserialize, Debug)]
pub struct Started {
    /// The game's id.
    pub id: u64,
    /// The seat taken.
    pub seat: Seat,
    /// This seat's token (for its actions).
    pub token: Option<String>,
    /// The other seat's token, to hand to a second person.
    pub invite: Option<String>,
}

/// `GET /api/play`: one game of this server.
#[derive(Serialize, Deserialize, Debug)]
pub struct PlayItem {
    /// The game's id.
    pub id: u64,
    /// The variant's id.
    pub variant: String,
    /// The players' names.
    pub players: Vec<String>,
    /// Plies played, once it has begun.
    pub ply: Option<u32>,
    /// The PGN result, once it is over.
    pub result: Option<String>,
}

/// A move a browser player may choose.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct MoveOffer {
    /// The move's id, as text.
    pub id: String,
    /// Its text.
    pub text: String,
    /// The cells it touches, where the variant says.
    pub cells: Option<Vec<u32>>,
}

/// `POST /api/play/{id}/action`: done.
#[derive(Serialize, Deserialize, Debug)]
pub struct Done {
    /// Always true.
    pub ok: bool,
}

/// The worker routes' answer where there is nothing to say: `{}`.
#[derive(Serialize, Deserialize, Debug)]
pub struct Empty {}

/// `GET /api/play/{id}` (and each event of its stream): a game of this
/// server as one seat, or a spectator, sees it now.
#[derive(Serialize, Deserialize, Debug)]
pub struct SessionView {
    /// The game's id.
    pub id: u64,
    /// The variant's id.
    pub variant: String,
    /// Its name in words.
    pub variant_name: String,
    /// The board's shape.
    pub board: BoardGeometry,
    /// The piece sets the board may be drawn with.
    pub piece_sets: Vec<PieceSet>,
    /// The variant's sides, in turn order.
    pub sides: Vec<String>,
    /// The players' names, in turn order.
    pub players: Vec<String>,
    /// The viewer's seat (`null`: a spectator).
    pub you: Option<Seat>,
    /// The latest frame as this viewer sees it (its fields at the top
    /// level; none before the game's first).
    #[serde(flatten)]
    pub now: Option<SeenFrame>,
    /// How long ago that frame's clocks were read, in ms.
    pub clock_age_ms: Option<u64>,
    /// The moves this seat may choose, when it is asked for one.
    pub moves: Option<Vec<MoveOffer>>,
    /// Who offers this seat a draw.
    pub draw_offered_by: Option<Seat>,
    /// A notice for this seat.
    pub notice: Option<String>,
    /// The finished game's id in the store.
    pub stored_as: Option<i64>,
    /// Why the finished game was not stored.
    pub error: Option<String>,
}
