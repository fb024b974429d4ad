//! The referee: runs one game. It holds the true state; each player is asked
//! for a move through a [`Turn`] that shows only that player's view; answers are
//! checked for legality before they are applied; the game ends on the plugin's
//! status or a ply limit.

use arbiter_api::host::{Game, MoveBuf};
use arbiter_api::schema::Observation;
use arbiter_api::{Error, Status, Viewer};

use crate::players::{Player, PlayerError};

/// What a player may see when asked to move: its own observation, its legal
/// moves (which depend only on its own information) and move texts as it sees
/// them. The true state stays private to the referee.
pub struct Turn<'a> {
    game: &'a Game,
    player: u32,
    moves: &'a [u64],
}

impl Turn<'_> {
    /// The player being asked.
    pub fn player(&self) -> u32 {
        self.player
    }

    /// The legal moves of this player.
    pub fn legal_moves(&self) -> &[u64] {
        self.moves
    }

    /// What this player may know of the game.
    pub fn observe(&self) -> Result<Observation, Error> {
        self.game.observe(Viewer::Player(self.player))
    }

    /// A move as this player sees it.
    pub fn move_text(&self, mv: u64) -> Result<String, Error> {
        self.game.move_text(mv, Viewer::Player(self.player))
    }
}

/// One ply of a finished game.
#[derive(Clone, Debug)]
pub struct PlyRecord {
    /// Who moved.
    pub player: u32,
    /// The move id.
    pub mv: u64,
    /// The move in the variant's notation, as the referee sees it.
    pub text: String,
}

/// Why the referee stopped a game, beyond the plugin's own status.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The plugin refused or failed a call.
    #[error("plugin error: {0}")]
    Plugin(#[from] Error),
    /// A player could not move.
    #[error("player {player} failed: {source}")]
    Player {
        /// The failing player.
        player: u32,
        /// What went wrong.
        source: PlayerError,
    },
    /// A player answered a move that is not legal.
    #[error("player {player} chose an illegal move")]
    IllegalMove {
        /// The offending player.
        player: u32,
    },
}

/// A finished (or stopped) game.
pub struct GameRecord {
    /// The start position.
    pub start_position: String,
    /// Every ply played.
    pub plies: Vec<PlyRecord>,
    /// The final status (ongoing if the ply limit stopped the game).
    pub status: Status,
    /// The final state.
    pub final_game: Game,
}

/// Plays `game` to its end (or `max_plies`) between `players`, indexed by turn order.
pub fn play(
    mut game: Game,
    players: &mut [Box<dyn Player>],
    max_plies: Option<u32>,
) -> Result<GameRecord, RefereeError> {
    let start_position = game.position_text();
    let mut plies = Vec::new();
    let mut moves = MoveBuf::new();
    loop {
        let status = game.status();
        if !status.is_ongoing() || max_plies.is_some_and(|m| plies.len() as u32 >= m) {
            return Ok(GameRecord { start_position, plies, status, final_game: game });
        }
        let player = game.to_move();
        game.legal_moves(&mut moves)?;
        let turn = Turn { game: &game, player, moves: &moves };
        let seat = players.get_mut(player as usize).ok_or(RefereeError::IllegalMove { player })?;
        let mv = seat.choose(&turn).map_err(|source| RefereeError::Player { player, source })?;
        if !moves.contains(&mv) {
            return Err(RefereeError::IllegalMove { player });
        }
        let text = game.move_text(mv, Viewer::Referee)?;
        game.apply(mv)?;
        plies.push(PlyRecord { player, mv, text });
    }
}
