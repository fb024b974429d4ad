//! The JSON documents a plugin hands the host: the variant's info card and the
//! per-viewer observation of a board. One schema for every variant, so the
//! host's terminal view (and a web view) can draw any game without knowing it.
//! Plain serde types, shared by plugins (which write them) and the host (which
//! reads them). The full schema is documented in docs/ABI.md.

use serde::{Deserialize, Serialize};

/// Everything the host needs to know about a variant before playing it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct VariantInfo {
    /// Short lowercase id, unique among installed variants (`chess`).
    pub id: String,
    /// Display name ("FIDE chess").
    pub name: String,
    /// A paragraph summarising the rules.
    pub summary: String,
    /// Player names in turn order ("White", "Black").
    pub players: Vec<String>,
    /// How the board is laid out, for rendering.
    pub board: BoardGeometry,
    /// The move notation, e.g. "SAN; UCI long algebraic accepted".
    pub notation: String,
    /// The position notation, e.g. "FEN".
    pub position_notation: String,
    /// The start position in the position notation.
    pub start_position: String,
    /// Options accepted by `new_game`, with their defaults.
    pub options: Vec<OptionSpec>,
    /// What the variant offers beyond the basics.
    pub capabilities: Capabilities,
    /// Default time control in arbiter's syntax (`60+0.6`, `75min cap`...).
    pub default_time_control: String,
    /// A bound on the game length in plies, if the rules guarantee one.
    pub max_plies: Option<u32>,
    /// Extra tags for game records (PDN's `GameType` for draughts), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub record_tags: Vec<(String, String)>,
}

/// A set of glyphs a board view may draw pieces with instead of their
/// labels: each piece kind, as observations name it, to one short text (a
/// Unicode chess figurine, a Chinese character). Offered by
/// [`crate::kit::Variant::piece_sets`]; the first set is the default, and a
/// viewer may always fall back to the plain labels.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct PieceSet {
    /// The set's name, to choose it by ("figurines").
    pub name: String,
    /// Whether each glyph is drawn alone in its owner's colour (figurines,
    /// draughts men) rather than as a label on the owner's disc.
    pub figurines: bool,
    /// Glyph per piece kind, or per label (a label tells the owner by its
    /// case and a promoted piece by its `+`: `R`, `r`, `+P`); a piece
    /// matching neither keeps its label.
    pub glyphs: std::collections::BTreeMap<String, String>,
    /// The counters the glyphs are drawn on, as each game's players know
    /// them: `xiangqi` (round, lettered in the owner's colour), `janggi`
    /// (octagonal, the general largest and soldiers and advisors smallest),
    /// `shogi` (wedges pointing at the opponent, promoted pieces lettered
    /// red); empty: a disc in the owner's colour (or, for figurines, the
    /// glyph alone).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub style: String,
}

impl PieceSet {
    /// A set named `name` from `(kind, glyph)` pairs.
    pub fn new(name: &str, figurines: bool, glyphs: &[(&str, &str)]) -> PieceSet {
        PieceSet {
            name: name.into(),
            figurines,
            glyphs: glyphs.iter().map(|(k, g)| (k.to_string(), g.to_string())).collect(),
            style: String::new(),
        }
    }

    /// The same set drawn on the counters `style` names (see [`PieceSet::style`]).
    pub fn with_style(mut self, style: &str) -> PieceSet {
        self.style = style.into();
        self
    }

    /// Chess pieces as Unicode figurines (drawn in their owner's colour;
    /// the glyphs come from the viewer's fonts, nothing is bundled), for
    /// any variant whose observations name pieces as chess does.
    pub fn chess_figurines() -> PieceSet {
        PieceSet::new(
            "figurines",
            true,
            &[("king", "♚"), ("queen", "♛"), ("rook", "♜"), ("bishop", "♝"), ("knight", "♞"), ("pawn", "♟")],
        )
    }
}

/// One variant option with its type and default.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// Option name as used in the options JSON object.
    pub name: String,
    /// "bool", "int", "string" or "choice".
    pub kind: String,
    /// The default value.
    pub default: serde_json::Value,
    /// For "choice": the allowed values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// What the option does.
    pub description: String,
}

/// Optional features of a variant.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Capabilities {
    /// Players do not see the whole state; observations differ per viewer.
    pub hidden_information: bool,
    /// `evaluate` returns a heuristic value.
    pub evaluate: bool,
    /// `sample_world` draws states consistent with a viewer's knowledge.
    pub sample_world: bool,
}

/// The shape of the board. Cells are addressed by index: for a grid,
/// `index = row * width + col`, with row 0 the bottom row as player 0 sees it
/// and col 0 its left file; for a graph, the index into `points`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BoardGeometry {
    /// A rectangular grid of squares.
    Grid {
        /// Number of columns.
        width: u32,
        /// Number of rows.
        height: u32,
        /// Alternate light and dark squares (chess, draughts).
        checkered: bool,
        /// Names of the columns, left to right (`a`..`h`).
        files: Vec<String>,
        /// Names of the rows, bottom to top (`1`..`8`).
        ranks: Vec<String>,
    },
    /// The points where a grid's lines cross, pieces standing on them
    /// (xiangqi, janggi); cells are indexed as a grid's.
    Lines {
        /// Number of points across.
        width: u32,
        /// Number of points up.
        height: u32,
        /// Names of the columns, left to right.
        files: Vec<String>,
        /// Names of the rows, bottom to top.
        ranks: Vec<String>,
        /// The row below the river, if there is one (xiangqi's: 4): lines
        /// up the board break between it and the row above, but at the edges.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        river: Option<u32>,
        /// The bottom-left cells of 3x3 palaces, whose diagonals are drawn.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        palaces: Vec<u32>,
    },
    /// Points joined by lines (Junqi's posts, camps and railways).
    Graph {
        /// The points, with layout coordinates.
        points: Vec<Point>,
        /// The lines between points.
        edges: Vec<Edge>,
    },
}

/// A point of a graph board.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Point {
    /// Name of the point in the variant's notation.
    pub name: String,
    /// Layout column (may be fractional).
    pub x: f32,
    /// Layout row, 0 at the bottom.
    pub y: f32,
    /// Kind of cell: "post", "camp", "headquarters", "station", or "mountain"
    /// (scenery that holds no piece)...
    pub kind: String,
}

/// A line of a graph board.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Edge {
    /// Index of one end.
    pub a: u32,
    /// Index of the other end.
    pub b: u32,
    /// "road", "railway"...
    pub kind: String,
}

/// What one viewer may know of a game, for rendering and for programs.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ObservationView {
    /// The viewer this observation was made for: a player index, "spectator"
    /// or "referee" (the kit fills it in: what a plugin writes here is replaced).
    pub viewer: String,
    /// Index of the player to move (the kit fills it in from `Game::to_move`).
    pub to_move: u32,
    /// The pieces the viewer can see (or knows to be there).
    pub pieces: Vec<PieceView>,
    /// Cells to highlight (the last move, a checked king...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub highlights: Vec<u32>,
    /// Facts that do not belong to a cell ("White may castle kingside").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pieces in hand the viewer knows of (crazyhouse's pockets, shogi's
    /// hands), a kind of a side's an entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hands: Vec<HandView>,
    /// Cells no piece may enter, with what stands there (`wall`, `duck`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<BlockedView>,
}

/// Pieces of one kind in one side's hand.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HandView {
    /// Index of the player holding them.
    pub owner: u32,
    /// Kind name (as [`PieceView::kind`]).
    pub kind: String,
    /// Short label, as a piece of the kind on the board shows.
    pub label: String,
    /// How many are held.
    pub count: u32,
}

/// A cell no piece may enter.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BlockedView {
    /// Cell index (see [`BoardGeometry`]).
    pub cell: u32,
    /// What stands there: `wall`, `duck`...
    pub kind: String,
}

impl ObservationView {
    /// The name an observation made for `viewer` carries: the player's
    /// index (`"0"`), `"spectator"` or `"referee"`.
    pub fn viewer_name(viewer: crate::Viewer) -> String {
        match viewer {
            crate::Viewer::Player(p) => p.to_string(),
            crate::Viewer::Spectator => "spectator".into(),
            crate::Viewer::Referee => "referee".into(),
        }
    }
}

/// A piece (or tower) on a cell.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PieceView {
    /// Cell index (see [`BoardGeometry`]).
    pub cell: u32,
    /// Owning player.
    pub owner: u32,
    /// Piece kind ("king", "man"), or "unknown" when hidden from the viewer.
    pub kind: String,
    /// Short label to draw ("K", "♔", "5").
    pub label: String,
    /// For stacking games, the pieces beneath, top first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<PieceView>,
}

/// What one viewer may know of a game: a text rendering for terminals and a
/// structured view for programs and renderers.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// Human-readable rendering (a board diagram, the clocks are the host's).
    pub text: String,
    /// The structured view.
    pub view: ObservationView,
}
