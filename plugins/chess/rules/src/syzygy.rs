//! Tablebase adjudication: a chess game ends as Syzygy WDL tables say, as
//! fastchess's `-tb` does it. Probing is pyrrhic-rs's (MIT), with
//! cozy-chess's attack tables; only the `.rtbw` files are read.
//!
//! A position is probed only when the tables are exact for it: no castling
//! rights, at most as many pieces as the tables (and the host's `pieces`)
//! hold, and right after a capture or pawn move (the fifty-move counter at
//! zero, so that a win the fifty-move rule turns into a draw is told apart).
//! A cursed win or blessed loss is a draw unless `ignore50` is set.
//!
//! Every table file is checked ([`layout`]) before the prober maps any:
//! the prober trusts a file's offsets, and a damaged one would otherwise
//! take the process down.

pub mod layout;

use std::sync::Mutex;

use arbiter_api::Error;
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board, Color,
    Piece, Square,
};
use pyrrhic_rs::{EngineAdapter, TableBases, WdlProbeResult};
use serde_json::{json, Value};

use crate::fen::legal_en_passant;

/// cozy-chess's attack tables for the prober.
#[derive(Clone)]
struct Attacks;

fn square(index: u64) -> Square {
    Square::index(index as usize)
}

impl EngineAdapter for Attacks {
    fn pawn_attacks(color: pyrrhic_rs::Color, sq: u64) -> u64 {
        let color = if color == pyrrhic_rs::Color::White { Color::White } else { Color::Black };
        get_pawn_attacks(square(sq), color).0
    }
    fn knight_attacks(sq: u64) -> u64 {
        get_knight_moves(square(sq)).0
    }
    fn bishop_attacks(sq: u64, occupied: u64) -> u64 {
        get_bishop_moves(square(sq), BitBoard(occupied)).0
    }
    fn rook_attacks(sq: u64, occupied: u64) -> u64 {
        get_rook_moves(square(sq), BitBoard(occupied)).0
    }
    fn queen_attacks(sq: u64, occupied: u64) -> u64 {
        Self::bishop_attacks(sq, occupied) | Self::rook_attacks(sq, occupied)
    }
    fn king_attacks(sq: u64) -> u64 {
        get_king_moves(square(sq)).0
    }
}

/// What the host asks for (`{"tablebases": {...}}` of the `adjudicate` call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Folders of `.rtbw` files, separated by `:`.
    pub path: String,
    /// Probe only positions with at most this many pieces.
    pub pieces: Option<u32>,
    /// Wins and losses the fifty-move rule saves are adjudicated as wins and losses.
    pub ignore50: bool,
    /// Which verdicts end a game: `both`, `win-loss` or `draw`.
    pub results: String,
}

impl Request {
    /// The request in the `adjudicate` call's arguments, if there is one.
    pub fn of(args: &Value) -> Result<Option<Request>, Error> {
        let Some(tb) = args.get("tablebases").filter(|t| !t.is_null()) else { return Ok(None) };
        let bad = |why: &str| Error::bad_options(format!("adjudicate: tablebases: {why}: {tb}"));
        let path = tb["path"].as_str().filter(|p| !p.is_empty()).ok_or_else(|| bad("no path"))?.to_string();
        let pieces = match &tb["pieces"] {
            Value::Null => None,
            n => Some(n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| bad("pieces is not a count"))?),
        };
        let results = tb["results"].as_str().unwrap_or("both").to_string();
        if !["both", "win-loss", "draw"].contains(&results.as_str()) {
            return Err(bad("results must be both, win-loss or draw"));
        }
        Ok(Some(Request { path, pieces, ignore50: tb["ignore50"].as_bool().unwrap_or(false), results }))
    }
}

/// The tables this process opened (the prober keeps one set per process).
static OPENED: Mutex<Option<(String, TableBases<Attacks>)>> = Mutex::new(None);

/// The tables at `path`, opened on first use.
fn tables(path: &str) -> Result<TableBases<Attacks>, Error> {
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    match opened.as_ref() {
        Some((p, tables)) if p == path => return Ok(tables.clone()),
        Some((p, _)) => {
            return Err(Error::bad_options(format!("tablebases: {p} are open in this process; {path} cannot be too")))
        }
        None => {}
    }
    check(path)?;
    let tables = TableBases::<Attacks>::new(path).map_err(|e| {
        Error::bad_options(format!("tablebases: no Syzygy WDL tables could be read from {path} ({e:?})"))
    })?;
    *opened = Some((path.to_string(), tables.clone()));
    Ok(tables)
}

/// Checks every table file in the folders of `path` (see [`layout`]);
/// how many there are. A bad file is an error naming it.
pub fn check(path: &str) -> Result<usize, Error> {
    match layout::check_folders(path) {
        Ok(0) => Err(Error::bad_options(format!("tablebases: {path} holds no Syzygy WDL tables (.rtbw files)"))),
        Ok(n) => Ok(n),
        Err(bad) => Err(Error::bad_options(format!("tablebases: {bad}"))),
    }
}

/// The tables' verdict for the side to move, if the position can be probed.
pub fn probe(board: &Board, halfmove_clock: u16, request: &Request) -> Result<Option<WdlProbeResult>, Error> {
    // Most plies end here, before the tables are looked at.
    let pieces = board.occupied().len();
    let rights = [Color::White, Color::Black].iter().any(|&c| {
        let r = board.castle_rights(c);
        r.short.is_some() || r.long.is_some()
    });
    if halfmove_clock != 0 || rights || request.pieces.is_some_and(|n| pieces > n) {
        return Ok(None);
    }
    let tables = tables(&request.path)?;
    if pieces > tables.max_pieces() {
        return Ok(None);
    }
    let white = board.colors(Color::White).0;
    let black = board.colors(Color::Black).0;
    let ep = legal_en_passant(board).map_or(0, |sq| sq as u32);
    let result = tables.probe_wdl(
        white,
        black,
        board.pieces(Piece::King).0,
        board.pieces(Piece::Queen).0,
        board.pieces(Piece::Rook).0,
        board.pieces(Piece::Bishop).0,
        board.pieces(Piece::Knight).0,
        board.pieces(Piece::Pawn).0,
        ep,
        board.side_to_move() == Color::White,
    );
    // A material the tables lack is played on.
    Ok(result.ok())
}

/// The `adjudicate` answer for `board`: `null` to play on, or the outcome
/// with its reason.
pub fn adjudicate(board: &Board, halfmove_clock: u16, request: &Request) -> Result<Value, Error> {
    Ok(match probe(board, halfmove_clock, request)? {
        Some(wdl) => verdict(wdl, board.side_to_move(), request),
        None => Value::Null,
    })
}

/// What `wdl` for the side to move (`mover`) makes of the game.
fn verdict(wdl: WdlProbeResult, mover: Color, request: &Request) -> Value {
    let winner = match wdl {
        WdlProbeResult::Win => Some(mover),
        WdlProbeResult::Loss => Some(!mover),
        WdlProbeResult::CursedWin if request.ignore50 => Some(mover),
        WdlProbeResult::BlessedLoss if request.ignore50 => Some(!mover),
        _ => None,
    };
    let name = |c: Color| if c == Color::White { "White" } else { "Black" };
    match winner {
        Some(w) if request.results != "draw" => json!({
            "outcome": {"win": if w == Color::White { 0 } else { 1 }},
            "reason": format!("Syzygy tablebases: {} wins", name(w)),
        }),
        None if request.results != "win-loss" => {
            let why = match wdl {
                WdlProbeResult::CursedWin | WdlProbeResult::BlessedLoss => "drawn by the fifty-move rule",
                _ => "drawn",
            };
            json!({"outcome": "draw", "reason": format!("Syzygy tablebases: {why}")})
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursed_wins_and_blessed_losses_are_draws_unless_the_fifty_move_rule_is_ignored() {
        let mut request = Request { path: String::new(), pieces: None, ignore50: false, results: "both".into() };
        let outcome = |r: &Request, wdl, mover| verdict(wdl, mover, r)["outcome"].clone();
        assert_eq!(outcome(&request, WdlProbeResult::CursedWin, Color::White), "draw");
        assert_eq!(outcome(&request, WdlProbeResult::BlessedLoss, Color::White), "draw");
        assert_eq!(
            verdict(WdlProbeResult::CursedWin, Color::Black, &request)["reason"],
            "Syzygy tablebases: drawn by the fifty-move rule"
        );
        request.ignore50 = true;
        assert_eq!(outcome(&request, WdlProbeResult::CursedWin, Color::Black), json!({"win": 1}));
        assert_eq!(outcome(&request, WdlProbeResult::BlessedLoss, Color::Black), json!({"win": 0}));
        assert_eq!(outcome(&request, WdlProbeResult::Win, Color::White), json!({"win": 0}));
        assert_eq!(outcome(&request, WdlProbeResult::Loss, Color::White), json!({"win": 1}));
    }
}
