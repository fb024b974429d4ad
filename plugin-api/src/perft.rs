//! Perft: counting the leaves of the legal-move tree. In-plugin perft runs the
//! whole count inside the plugin in one call; generic perft drives the
//! recursion from the host through the ABI (clone, apply and legal moves per
//! node), which measures the boundary and checks the plugin's own count.

use crate::host::{Game, MoveBuf};
use crate::{Error, Viewer};

/// How to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One call; the plugin recurses.
    InPlugin,
    /// The host recurses through the ABI.
    Generic,
}

/// Leaf count `depth` plies below `game`.
pub fn perft(game: &Game, depth: u32, mode: Mode) -> Result<u64, Error> {
    match mode {
        Mode::InPlugin => game.perft(depth),
        Mode::Generic => GenericPerft::new(game, depth).count(game, depth),
    }
}

/// Per-move leaf counts (`divide`), with each move in the variant's notation.
pub fn divide(game: &Game, depth: u32, mode: Mode) -> Result<Vec<(String, u64)>, Error> {
    let mut rows = Vec::new();
    for mv in game.legal_move_list()? {
        let text = game.move_text(mv, Viewer::Referee)?;
        let mut child = game.clone();
        child.apply(mv)?;
        rows.push((text, perft(&child, depth.saturating_sub(1), mode)?));
    }
    Ok(rows)
}

/// Scratch states and move buffers, one per ply, reused across the whole
/// count so that the recursion allocates nothing per node.
struct GenericPerft {
    states: Vec<Game>,
    moves: Vec<MoveBuf>,
}

impl GenericPerft {
    fn new(game: &Game, depth: u32) -> Self {
        GenericPerft {
            states: (0..depth).map(|_| game.clone()).collect(),
            moves: (0..depth).map(|_| MoveBuf::new()).collect(),
        }
    }

    fn count(&mut self, game: &Game, depth: u32) -> Result<u64, Error> {
        count_at(game, depth, &mut self.states, &mut self.moves)
    }
}

fn count_at(game: &Game, depth: u32, states: &mut [Game], bufs: &mut [MoveBuf]) -> Result<u64, Error> {
    if depth == 0 {
        return Ok(1);
    }
    let (moves, deeper_bufs) = bufs.split_first_mut().expect("one buffer per ply");
    game.legal_moves(moves)?;
    if depth == 1 {
        return Ok(moves.len() as u64);
    }
    let (child, deeper_states) = states.split_first_mut().expect("one state per ply");
    let mut total = 0;
    for &mv in moves.iter() {
        child.copy_from(game)?;
        child.apply(mv)?;
        total += count_at(child, depth - 1, deeper_states, deeper_bufs)?;
    }
    Ok(total)
}
