//! The glyph sets the board view may draw an ini variant's pieces with:
//! xiangqi's and janggi's Chinese characters on their counters, shogi's
//! kanji on its wedges, chess's figurines for the kinds chess has. Only
//! text: the viewer's fonts draw them, nothing is bundled.

use arbiter_api::schema::PieceSet;

use crate::rules::{Notation, Points, Rules};

/// Xiangqi's characters by Fairy-Stockfish's piece name: Red's, then Black's.
const XIANGQI: &[(&str, &str, &str)] = &[
    ("king", "帥", "將"),
    ("fers", "仕", "士"),
    ("elephant", "相", "象"),
    ("horse", "傌", "馬"),
    ("rook", "俥", "車"),
    ("cannon", "炮", "砲"),
    ("soldier", "兵", "卒"),
];

/// Janggi's: Cho's, then Han's.
const JANGGI: &[(&str, &str, &str)] = &[
    ("king", "楚", "漢"),
    ("wazir", "士", "士"),
    ("janggiElephant", "象", "象"),
    ("horse", "馬", "馬"),
    ("rook", "車", "車"),
    ("janggiCannon", "包", "包"),
    ("soldier", "卒", "兵"),
];

/// Shogi's kanji: sente's, gote's (their kings differ), and the piece's
/// when promoted.
const SHOGI: &[(&str, &str, &str, Option<&str>)] = &[
    ("king", "玉", "王", None),
    ("rook", "飛", "飛", Some("龍")),
    ("bishop", "角", "角", Some("馬")),
    ("gold", "金", "金", None),
    ("silver", "銀", "銀", Some("全")),
    ("shogiKnight", "桂", "桂", Some("圭")),
    ("lance", "香", "香", Some("杏")),
    ("shogiPawn", "歩", "歩", Some("と")),
    ("dragonHorse", "馬", "馬", None),
];

/// The sets a variant's pieces may be drawn with, the default first: the
/// characters of xiangqi's and janggi's boards, shogi's kanji, or chess's
/// figurines where the variant has chess's kinds; none otherwise.
pub fn sets(rules: &Rules) -> Vec<PieceSet> {
    match (rules.on_points, rules.notation) {
        (Some(Points::Xiangqi), _) => vec![characters(rules, XIANGQI).with_style("xiangqi")],
        (Some(Points::Janggi), _) => vec![characters(rules, JANGGI).with_style("janggi")],
        (None, Notation::Shogi) => vec![kanji(rules).with_style("shogi")],
        (None, Notation::San) => {
            let chess = PieceSet::chess_figurines();
            let has = |kind: &String| rules.pieces.iter().any(|p| &p.name == kind);
            if chess.glyphs.keys().any(has) {
                vec![chess]
            } else {
                Vec::new()
            }
        }
    }
}

/// The characters of `table` by each side's label.
fn characters(rules: &Rules, table: &[(&str, &str, &str)]) -> PieceSet {
    let mut glyphs = Vec::new();
    for (k, piece) in rules.pieces.iter().enumerate() {
        if let Some((_, first, second)) = table.iter().find(|(name, ..)| *name == piece.name) {
            glyphs.push((rules.label(k, true, None), first.to_string()));
            glyphs.push((rules.label(k, false, None), second.to_string()));
        }
    }
    by_label("Chinese characters", glyphs)
}

/// Shogi's kanji by each side's label, promoted pieces' (`+P`) too.
fn kanji(rules: &Rules) -> PieceSet {
    let mut glyphs = Vec::new();
    for (k, piece) in rules.pieces.iter().enumerate() {
        let Some((_, sente, gote, promoted)) = SHOGI.iter().find(|(name, ..)| *name == piece.name) else { continue };
        glyphs.push((rules.label(k, true, None), sente.to_string()));
        glyphs.push((rules.label(k, false, None), gote.to_string()));
        let Some(to) = rules.promoted_kind[k] else { continue };
        // A piece that turns over and back (kyoto shogi) shows the piece on
        // its other side: the lance's is a tokin, the others' the kind it moves as.
        let plain = |name: &str| SHOGI.iter().find(|(n, ..)| *n == name).map(|(_, sente, ..)| *sente);
        let glyph = match (rules.piece_demotion, piece.name.as_str()) {
            (true, "lance") => Some("と"),
            (true, _) => plain(&rules.pieces[to].name),
            (false, _) => *promoted,
        };
        if let Some(glyph) = glyph {
            glyphs.push((rules.label(to, true, Some(k)), glyph.to_string()));
            glyphs.push((rules.label(to, false, Some(k)), glyph.to_string()));
        }
    }
    by_label("kanji", glyphs)
}

fn by_label(name: &str, glyphs: Vec<(String, String)>) -> PieceSet {
    let pairs: Vec<(&str, &str)> = glyphs.iter().map(|(l, g)| (l.as_str(), g.as_str())).collect();
    PieceSet::new(name, false, &pairs)
}
