//! Moves as players write them: what Fairy-Stockfish writes for the variant
//! by default (its SAN; shogi's numbered notation for `variantTemplate =
//! shogi`), and reading those texts back, or coordinates (`e2e4`, `P@e4`,
//! as engines write them).

use arbiter_api::Error;

use crate::game::FairyGame;
use crate::position::Move;
use crate::rules::{Notation, Rules};

/// How much of the origin square a move's text needs to tell it apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    None,
    File,
    Rank,
    Square,
}

impl FairyGame {
    /// `m`, a legal move here, in the variant's notation, check and mate
    /// marks included (SAN's `+` and `#`; shogi's notation has none).
    pub fn notation(&self, m: Move) -> String {
        let mut text = self.notation_unmarked(m);
        // Without a king there is no check to mark.
        if self.pos.rules.notation == Notation::San && self.pos.rules.has_royal {
            let mut child = self.clone();
            child.play_move(m);
            if child.pos.in_check(child.pos.side) {
                text.push(if child.legal().is_empty() { '#' } else { '+' });
            }
        }
        text
    }

    /// Reads a move of the player to move: its coordinates as engines
    /// write them, or its notation (check marks and `!?` optional,
    /// `0-0` for `O-O`, a pass also as `@@@@` or `0000`).
    pub fn read_move(&self, text: &str) -> Result<Move, Error> {
        let text = text.trim();
        // Coordinates first (as engines write them), then the notation.
        let table = self.texts.get_or_init(|| {
            let mut table: std::collections::HashMap<String, Move> =
                self.legal().iter().map(|&m| (self.pos.uci(m), m)).collect();
            for &m in self.legal() {
                table.entry(self.notation_unmarked(m)).or_insert(m);
            }
            table
        });
        if let Some(&m) = table.get(text) {
            return Ok(m);
        }
        // A pass as xboard (`@@@@`) and UCI's null move (`0000`) write it.
        if matches!(text, "@@@@" | "0000") {
            if let Some(&m) = self.legal().iter().find(|m| matches!(m, Move::Pass { .. })) {
                return Ok(m);
            }
        }
        let mut bare = text.trim_end_matches(['!', '?']);
        if self.pos.rules.notation == Notation::San {
            bare = bare.trim_end_matches(['+', '#']);
        }
        let bare = match bare {
            b if b.starts_with("0-0-0") => format!("O-O-O{}", &b[5..]),
            b if b.starts_with("0-0") => format!("O-O{}", &b[3..]),
            b => b.to_string(),
        };
        table.get(&bare).copied().ok_or_else(|| Error::illegal_move(format!("'{text}' is not a legal move here")))
    }

    /// The notation of `m` without check marks: the move, then where its
    /// wall goes (`Qa1,d1`).
    fn notation_unmarked(&self, m: Move) -> String {
        match m {
            Move::Walled { wall, .. } => {
                format!("{},{}", self.piece_move_text(m.unwalled(), m), square_name(&self.pos.rules, wall))
            }
            _ => self.piece_move_text(m, m),
        }
    }

    /// The text of `m`, the move of `whole` without its wall (told apart
    /// from the other legal moves by `whole`).
    fn piece_move_text(&self, m: Move, whole: Move) -> String {
        let pos = &self.pos;
        let r = &*pos.rules;
        let shogi = r.notation == Notation::Shogi;
        let letter = |kind: u8| r.pieces[kind as usize].move_letter;
        let square = |sq: u16| square_name(r, sq);
        let mut out = String::new();
        match m {
            // A pass is the mover's first piece staying where it is (`Pa1`).
            Move::Pass { at } => {
                if let Some(p) = pos.board[at as usize] {
                    out.push(letter(p.kind));
                }
                out.push_str(&square(at));
            }
            Move::Castle { from, rook, .. } | Move::GateCastle { from, rook, .. } => {
                out.push_str(if rook > from { "O-O" } else { "O-O-O" });
                if let Move::GateCastle { kind, on_rook, .. } = m {
                    out.push('/');
                    out.push(letter(kind));
                    out.push_str(&square(if on_rook { rook } else { from }));
                }
            }
            Move::Drop { kind, to, promoted } => {
                match (promoted, shogi) {
                    (true, true) => {
                        out.push('+');
                        out.push(letter(kind));
                    }
                    (true, false) => out.push(letter(r.promoted_kind[kind as usize].unwrap_or(kind as usize) as u8)),
                    (false, _) => out.push(letter(kind)),
                }
                out.push(if shogi { '*' } else { '@' });
                out.push_str(&square(to));
            }
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Demote { from, to }
            | Move::Gate { from, to, .. } => {
                let Some(piece) = pos.board[from as usize] else { return pos.uci(m) };
                let chess_pawn = r.pieces[piece.kind as usize].name == "pawn";
                match piece.base {
                    Some(base) if shogi => {
                        out.push('+');
                        out.push(letter(base));
                    }
                    _ if chess_pawn && !shogi => {}
                    _ => out.push(letter(piece.kind)),
                }
                let capture = pos.is_capture(m);
                // A pawn's capture names its file; a sittuyin promotion
                // elsewhere than where the pawn stands, its square.
                let moving_promotion =
                    r.sittuyin_promotion && from != to && matches!(m, Move::Normal { promotion: Some(_), .. });
                let origin = match (chess_pawn && !shogi, capture, moving_promotion) {
                    (true, true, _) => Origin::File,
                    (true, _, true) => Origin::Square,
                    _ => self.origin(whole, from),
                };
                let (file, rank) = (square(from), rank_name(r, from));
                match origin {
                    Origin::None => {}
                    Origin::File => out.push_str(&file[..file.len() - rank.len()]),
                    Origin::Rank => out.push_str(&rank),
                    Origin::Square => out.push_str(&file),
                }
                if capture {
                    out.push('x');
                } else if shogi {
                    out.push('-');
                }
                out.push_str(&square(to));
                match m {
                    Move::Normal { promotion: Some(k), .. }
                        if r.pawn_promotion(piece.color as usize, piece.kind as usize, k as usize) =>
                    {
                        out.push('=');
                        out.push(letter(k));
                    }
                    Move::Normal { promotion: Some(_), .. } if shogi => out.push('+'),
                    Move::Normal { promotion: Some(k), .. } => {
                        out.push('=');
                        out.push(letter(k));
                    }
                    Move::Demote { .. } if shogi => out.push('-'),
                    Move::Demote { .. } => {
                        out.push('=');
                        out.push(letter(piece.base.unwrap_or(piece.kind)));
                    }
                    Move::Normal { promotion: None, .. } if shogi && self.could_promote(from, to) => out.push('='),
                    Move::Gate { kind, .. } => {
                        out.push('/');
                        out.push(letter(kind));
                    }
                    _ => {}
                }
            }
            Move::Walled { .. } => return self.notation_unmarked(m),
        }
        out
    }

    /// How much of `from` tells `m` apart from the same kind's other legal
    /// moves of the same sort to the same square (same promotion, gated
    /// piece or wall): those `m` would be from their squares.
    fn origin(&self, m: Move, from: u16) -> Origin {
        let pos = &self.pos;
        let shogi = pos.rules.notation == Notation::Shogi;
        let Some(piece) = pos.board[from as usize] else { return Origin::None };
        let legal = self.ids.get_or_init(|| self.legal().iter().map(|m| m.id()).collect());
        // The squares of the mover's other pieces of its kind that have the same move.
        let squares = pos.rules.width as usize * pos.rules.height as usize;
        let others: Vec<u16> = (0..squares as u16)
            .filter(|&s| {
                s != from
                    && pos.board[s as usize].is_some_and(|p| {
                        p.color == piece.color && p.kind == piece.kind && (!shogi || p.base == piece.base)
                    })
                    && with_from(m, s).is_some_and(|o| legal.contains(&o.id()))
            })
            .collect();
        let w = pos.rules.width as u16;
        if others.is_empty() {
            Origin::None
        } else if shogi {
            Origin::Square
        } else if others.iter().all(|&s| s % w != from % w) {
            Origin::File
        } else if others.iter().all(|&s| s / w != from / w) {
            Origin::Rank
        } else {
            Origin::Square
        }
    }

    /// Whether the piece on `from` may promote going to `to` (shogi writes
    /// `=` after a move that declines).
    fn could_promote(&self, from: u16, to: u16) -> bool {
        self.legal()
            .iter()
            .any(|&o| matches!(o, Move::Normal { from: f, to: t, promotion: Some(_) } if f == from && t == to))
    }
}

/// `m` with its origin moved to `s`.
fn with_from(m: Move, s: u16) -> Option<Move> {
    Some(match m {
        Move::Walled { wall, .. } => Move::Walled { base: with_from(m.unwalled(), s)?.id(), wall },
        Move::Normal { to, promotion, .. } => Move::Normal { from: s, to, promotion },
        Move::EnPassant { to, .. } => Move::EnPassant { from: s, to },
        Move::Demote { to, .. } => Move::Demote { from: s, to },
        Move::Gate { to, kind, .. } => Move::Gate { from: s, to, kind },
        _ => return None,
    })
}

/// A square as the notation names it: `e4`, or in shogi's `76` (files
/// from the right, ranks from the top).
fn square_name(r: &Rules, sq: u16) -> String {
    match r.notation {
        Notation::San => r.square_name(sq as usize),
        Notation::Shogi => format!("{}{}", r.width as u16 - sq % r.width as u16, rank_name(r, sq)),
    }
}

/// A square's rank as the notation names it.
fn rank_name(r: &Rules, sq: u16) -> String {
    let rank = sq / r.width as u16;
    match r.notation {
        Notation::San => (rank + 1).to_string(),
        Notation::Shogi => (r.height as u16 - rank).to_string(),
    }
}
