//! Chess variants without code: every section of a `variants.ini` file (the
//! format Fairy-Stockfish reads) is a variant of its own, played and
//! refereed by one generic rules engine. The definitions shipped with the
//! plugin are ours ([`BUILT_IN`]); a user's files are read when the plugin
//! loads, from the plugin's own folder, the folders of
//! `ARBITER_PLUGIN_PATH`, and the files or folders `ARBITER_VARIANTS_INI`
//! names. A section that cannot be read is a warning naming its file, line
//! and key; the others still load.

pub mod betza;
pub mod game;
pub mod glyphs;
pub mod ini;
pub mod notation;
pub mod position;
pub mod rules;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

pub use game::FairyGame;
use position::Position;
use rules::{Notation, Points, Rules};

/// The definitions shipped with the plugin, written for arbiter.
pub const BUILT_IN: &str = include_str!("variants.ini");

/// Names compiled plugins of arbiter already have: an ini section of that
/// name is exported as `fairy-NAME`.
const COMPILED: &[&str] = &["chess"];

/// The environment variable naming extra ini files or folders, `:`-separated.
pub const INI_PATH_ENV: &str = "ARBITER_VARIANTS_INI";

/// One ini variant.
#[derive(Clone)]
pub struct FairyVariant {
    /// Its rules.
    pub rules: Arc<Rules>,
    /// The id it is exported under.
    pub id: String,
    /// Where it was defined.
    pub source: String,
}

impl FairyVariant {
    /// The bottom-left cells of the 3x3 blocks each side's king is kept in
    /// (xiangqi's palaces), from its mobility regions.
    fn palaces(&self) -> Vec<u32> {
        let r = &self.rules;
        let Some(king) = r.pieces.iter().position(|p| p.royal) else { return Vec::new() };
        let w = r.width as usize;
        r.mobility
            .iter()
            .filter_map(|side| {
                let cells: Vec<usize> =
                    side[king].as_ref()?.iter().enumerate().filter(|(_, &b)| b).map(|(c, _)| c).collect();
                let (f0, r0) = (cells.iter().map(|c| c % w).min()?, cells.iter().map(|c| c / w).min()?);
                let three = cells.len() == 9 && cells.iter().all(|c| c % w - f0 < 3 && c / w - r0 < 3);
                three.then_some((r0 * w + f0) as u32)
            })
            .collect()
    }

    /// The variant defined by the section `name` of `text` (and the built-ins it may inherit from).
    pub fn from_ini(text: &str, name: &str) -> Result<FairyVariant, String> {
        let mut sections = BTreeMap::new();
        for s in ini::parse("built-in", BUILT_IN).map_err(|e| e.to_string())? {
            sections.insert(s.name.clone(), s);
        }
        for s in ini::parse("given", text).map_err(|e| e.to_string())? {
            sections.insert(s.name.clone(), s);
        }
        variant(name, &sections).map_err(|e| e.to_string())
    }

    /// The start position.
    pub fn start(&self) -> Position {
        Position::from_fen(&self.rules, &self.rules.start_fen).expect("the start position was checked at load")
    }
}

/// Every variant: the built-in definitions, then the user's files (a later
/// section of the same name replaces an earlier one). Problems are logged.
pub fn installed() -> Vec<FairyVariant> {
    let mut sections = BTreeMap::new();
    let mut order = Vec::new();
    let files = std::iter::once(("built-in".to_string(), BUILT_IN.to_string())).chain(
        user_files().into_iter().filter_map(|p| match std::fs::read_to_string(&p) {
            Ok(text) => Some((p.display().to_string(), text)),
            Err(e) => {
                tracing::warn!("{}: cannot read ({e})", p.display());
                None
            }
        }),
    );
    for (name, text) in files {
        match ini::parse(&name, &text) {
            Ok(parsed) => {
                for s in parsed {
                    if !order.contains(&s.name) {
                        order.push(s.name.clone());
                    }
                    sections.insert(s.name.clone(), s);
                }
            }
            Err(e) => tracing::warn!("{e}"),
        }
    }
    let mut out = Vec::new();
    for name in order {
        match variant(&name, &sections) {
            Ok(v) => out.push(v),
            Err(e) => tracing::warn!("variant '{name}' not loaded: {e}"),
        }
    }
    out
}

fn variant(name: &str, sections: &BTreeMap<String, ini::Section>) -> Result<FairyVariant, ini::IniError> {
    let keys = ini::resolve(name, sections)?;
    let section = &sections[name];
    let mut rules = rules::build(name, &keys)?;
    rules.source = (section.file != "built-in").then(|| section.file.clone());
    let rules = Arc::new(rules);
    // The start position must be one of the variant's.
    Position::from_fen(&rules, &rules.start_fen).map_err(|e| {
        let (file, line) =
            keys.get("startFen").map(|(_, f, l)| (f.clone(), *l)).unwrap_or((section.file.clone(), section.line));
        ini::IniError { file, line, message: format!("startFen: {e}") }
    })?;
    let id = if COMPILED.contains(&name) { format!("fairy-{name}") } else { name.to_string() };
    Ok(FairyVariant { rules, id, source: section.file.clone() })
}

/// The ini files to read: the plugin's own folder, `ARBITER_PLUGIN_PATH`'s
/// folders, and what `ARBITER_VARIANTS_INI` names.
fn user_files() -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = Vec::new();
    if let Some(dir) = own_folder() {
        places.push(dir);
    }
    for var in ["ARBITER_PLUGIN_PATH", INI_PATH_ENV] {
        if let Some(v) = std::env::var_os(var) {
            for place in std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()) {
                // A definition file asked for by name and not there is said,
                // not passed over.
                if var == INI_PATH_ENV && !place.exists() {
                    tracing::warn!("{INI_PATH_ENV} names {}, which does not exist", place.display());
                }
                places.push(place);
            }
        }
    }
    let mut files = Vec::new();
    for place in places {
        let found: Vec<PathBuf> = if place.is_file() {
            vec![place]
        } else {
            let mut in_dir: Vec<PathBuf> = std::fs::read_dir(&place)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "ini"))
                        .collect()
                })
                .unwrap_or_default();
            in_dir.sort();
            in_dir
        };
        for f in found {
            let key = f.canonicalize().unwrap_or_else(|_| f.clone());
            if !files.iter().any(|g: &PathBuf| g.canonicalize().unwrap_or_else(|_| g.clone()) == key) {
                files.push(f);
            }
        }
    }
    files
}

/// The folder this plugin's library was loaded from: none for a WebAssembly
/// build, which reads no files (its variants are the built-in ones).
#[cfg(target_arch = "wasm32")]
fn own_folder() -> Option<PathBuf> {
    None
}

/// The folder this plugin's library was loaded from.
#[cfg(not(target_arch = "wasm32"))]
fn own_folder() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`.
    let found = unsafe { libc::dladdr(own_folder as *const libc::c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr gave a NUL-terminated path that lives as long as the library.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = std::path::Path::new(std::ffi::OsStr::new(std::str::from_utf8(path.to_bytes()).ok()?));
    path.parent().map(std::path::Path::to_path_buf)
}

impl Variant for FairyVariant {
    type Game = FairyGame;

    fn info(&self) -> VariantInfo {
        let r = &self.rules;
        let mut summary =
            format!("{} from {} (the variants.ini format): {}x{} board", self.rules.id, self.source, r.width, r.height);
        let pieces: Vec<String> =
            r.pieces.iter().map(|p| format!("{} {}", p.letter.to_ascii_uppercase(), p.name)).collect();
        summary.push_str(&format!("; pieces {}", pieces.join(", ")));
        if r.drops {
            summary.push_str("; drops");
        }
        VariantInfo {
            id: self.id.clone(),
            name: self.rules.id.clone(),
            summary,
            // Xiangqi's sides are Red and Black (its first player, Red);
            // Janggi's Cho (blue) and Han (red), Cho first; shogi's sente
            // (who moves first) and gote.
            players: match (r.on_points, r.notation) {
                (Some(Points::Xiangqi), _) => vec!["Red".into(), "Black".into()],
                (Some(Points::Janggi), _) => vec!["Cho".into(), "Han".into()],
                (None, Notation::Shogi) => vec!["Sente".into(), "Gote".into()],
                (None, Notation::San) => vec!["White".into(), "Black".into()],
            },
            // A shogi board is uniform, its files numbered from the right
            // and its ranks from the top, as its moves name them.
            board: match r.notation {
                Notation::San if r.on_points.is_some() => BoardGeometry::Lines {
                    width: r.width as u32,
                    height: r.height as u32,
                    files: (0..r.width).map(|f| ((b'a' + f) as char).to_string()).collect(),
                    ranks: (1..=r.height).map(|n| n.to_string()).collect(),
                    // Xiangqi's river crosses the middle of a board of ten ranks.
                    river: (r.on_points == Some(Points::Xiangqi) && r.height == 10).then_some(4),
                    palaces: self.palaces(),
                },
                Notation::San => BoardGeometry::Grid {
                    width: r.width as u32,
                    height: r.height as u32,
                    checkered: true,
                    files: (0..r.width).map(|f| ((b'a' + f) as char).to_string()).collect(),
                    ranks: (1..=r.height).map(|n| n.to_string()).collect(),
                },
                Notation::Shogi => BoardGeometry::Grid {
                    width: r.width as u32,
                    height: r.height as u32,
                    checkered: false,
                    files: (1..=r.width).rev().map(|n| n.to_string()).collect(),
                    ranks: (1..=r.height).rev().map(|n| n.to_string()).collect(),
                },
            },
            notation: match r.notation {
                Notation::San => {
                    "SAN as Fairy-Stockfish writes it (Nf3, exd5, e8=Q+, P@e4); coordinates (e2e4) read too"
                }
                Notation::Shogi => {
                    "shogi's numbered notation as Fairy-Stockfish writes it (P-76, Bx33+, S*45); coordinates read too"
                }
            }
            .into(),
            position_notation: "FEN".into(),
            start_position: self.start().fen(),
            options: if self.rules.chess960 && r.width == 8 {
                vec![OptionSpec {
                    name: "start_number".into(),
                    kind: "int".into(),
                    default: Value::from(-1),
                    choices: Vec::new(),
                    description: "The Chess960 start array by Scharnagl's number, 0 to 959 (518 is chess's); \
                                  -1: the ini's start position."
                        .into(),
                }]
            } else {
                Vec::new()
            },
            capabilities: Capabilities::default(),
            default_time_control: "60+0.6".into(),
            max_plies: None,
            record_tags: vec![("Variant".into(), self.rules.id.clone())],
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<FairyGame, Error> {
        match options.get("start_number").filter(|_| self.rules.chess960 && self.rules.width == 8) {
            None => Ok(FairyGame::new(self.start())),
            Some(v) if v.as_i64() == Some(-1) => Ok(FairyGame::new(self.start())),
            Some(v) => {
                let n = v.as_u64().filter(|&n| n < 960).ok_or_else(|| {
                    Error::bad_position(format!("option start_number: {v} is not a start number from 0 to 959"))
                })?;
                let back = chess960_array(n as u32);
                let fen = format!("{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1", back.to_lowercase(), back);
                self.from_position(&fen, options)
            }
        }
    }

    fn from_position(&self, text: &str, _options: &Map<String, Value>) -> Result<FairyGame, Error> {
        Position::from_fen(&self.rules, text)
            .map(FairyGame::new)
            .map_err(|e| Error::bad_position(format!("{}: {e}", self.id)))
    }

    fn piece_sets(&self) -> Vec<PieceSet> {
        glyphs::sets(&self.rules)
    }
}

arbiter_api::export_plugin!(list: installed());

/// The back rank of Chess960 start number `n` (Scharnagl's numbering: 518 is `RNBQKBNR`).
fn chess960_array(n: u32) -> String {
    let mut rank = [' '; 8];
    let (n, light) = (n / 4, n % 4);
    rank[(2 * light + 1) as usize] = 'B';
    let (n, dark) = (n / 4, n % 4);
    rank[(2 * dark) as usize] = 'B';
    let (n, queen) = (n / 6, n % 6);
    let free = |rank: &[char; 8]| (0..8).filter(|&i| rank[i] == ' ').collect::<Vec<usize>>();
    rank[free(&rank)[queen as usize]] = 'Q';
    // The ten ways to place two knights on the five squares left.
    const KNIGHTS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (a, b) = KNIGHTS[n as usize];
    let left = free(&rank);
    rank[left[a]] = 'N';
    rank[left[b]] = 'N';
    for (square, piece) in free(&rank).into_iter().zip(['R', 'K', 'R']) {
        rank[square] = piece;
    }
    rank.iter().collect()
}
