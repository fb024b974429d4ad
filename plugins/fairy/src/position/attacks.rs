//! Which squares a side attacks: steps and rides by Betza's notation,
//! lame leapers and hoppers, checks, pseudo-royal pieces, facing generals.

use crate::betza::{Hop, Step};
use crate::rules::Palace;

use super::{Color, Piece, Position};

impl Position {
    /// The squares a piece of `color` on `sq` reaches with `step`: (target, is a capture).
    pub(super) fn step_targets(&self, sq: usize, color: Color, step: &Step, out: &mut Vec<(usize, bool)>) {
        let flip = if color == Color::White { 1 } else { -1 };
        let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
        let them = color.opponent();
        let enemy = |s: usize| self.board[s].is_some_and(|p| p.color == them);
        if step.range == 1 && step.hop == Hop::None {
            if step.lame && self.lame_blocked(sq, dx, dy) {
                return;
            }
            if let Some(t) = self.offset(sq, dx, dy) {
                match self.board[t] {
                    None if step.quiet => out.push((t, false)),
                    Some(_) if step.capture && enemy(t) => out.push((t, true)),
                    _ => {}
                }
            }
            return;
        }
        let limit = if step.range == 0 || step.hop != Hop::None { usize::MAX } else { step.range as usize };
        let (mut at, mut n, mut screened) = (sq, 0, false);
        while n < limit {
            let Some(t) = self.offset(at, dx, dy) else { break };
            (at, n) = (t, n + 1);
            let occupied = self.board[t].is_some();
            let janggi = step.hop == Hop::JanggiCannon;
            if step.hop != Hop::None && !screened {
                if janggi && self.janggi_cannon(t) {
                    break;
                }
                screened = occupied;
                continue;
            }
            if occupied {
                if step.capture && enemy(t) && !(janggi && self.janggi_cannon(t)) {
                    out.push((t, true));
                }
                break;
            }
            if step.quiet {
                out.push((t, false));
            }
            if step.hop == Hop::Grasshopper {
                break;
            }
        }
    }

    /// Whether a Janggi cannon stands on `sq`.
    pub(super) fn janggi_cannon(&self, sq: usize) -> bool {
        self.board[sq].is_some_and(|p| p.color != Color::Wall && self.rules.pieces[p.kind as usize].janggi_cannon)
    }

    /// The points a piece of `color` on `from`, a point of the palace's
    /// diagonal lines, reaches along them as `palace` says: (target, is a capture).
    pub(super) fn palace_targets(&self, from: usize, color: Color, palace: Palace, out: &mut Vec<(usize, bool)>) {
        let lines = &self.rules.diagonal_lines;
        let forward = if color == Color::White { 1 } else { -1 };
        for (dx, dy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
            if palace == Palace::Forward && dy != forward {
                continue;
            }
            let (mut at, mut screened) = (from, false);
            while let Some(t) = self.offset(at, dx, dy) {
                at = t;
                match self.board[t] {
                    None if lines[t] && (palace != Palace::Hop || screened) => out.push((t, false)),
                    None => {}
                    // A cannon hops over one piece, not over another cannon.
                    Some(_) if palace == Palace::Hop && !screened => {
                        if self.janggi_cannon(t) {
                            break;
                        }
                        screened = true;
                        continue;
                    }
                    Some(p) => {
                        let cannon_safe = palace != Palace::Hop || !self.janggi_cannon(t);
                        if lines[t] && p.color == color.opponent() && cannon_safe {
                            out.push((t, true));
                        }
                        break;
                    }
                }
                if matches!(palace, Palace::Step | Palace::Forward) {
                    break;
                }
            }
        }
    }

    /// Whether a piece `p` on `from` attacks `sq` along the palace's lines.
    fn palace_hits(&self, from: usize, p: Piece, sq: usize) -> bool {
        let rules = &self.rules;
        let Some(palace) = rules.pieces[p.kind as usize].palace else { return false };
        if !rules.diagonal_lines.get(from).is_some_and(|&l| l) || !rules.diagonal_lines[sq] {
            return false;
        }
        if rules.mobility[p.color as usize][p.kind as usize].as_ref().is_some_and(|region| !region[sq]) {
            return false;
        }
        let mut targets = Vec::new();
        self.palace_targets(from, p.color, palace, &mut targets);
        targets.iter().any(|&(t, _)| t == sq)
    }

    /// Whether a square a lame leap passes is taken (or off the board).
    pub(super) fn lame_blocked(&self, sq: usize, dx: i32, dy: i32) -> bool {
        crate::betza::lame_path(dx, dy).any(|(x, y)| self.offset(sq, x, y).is_none_or(|l| self.board[l].is_some()))
    }

    /// Whether `color`'s pieces attack `sq` (as if an enemy piece stood there).
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        let w = self.rules.width as i32;
        let squares = self.rules.width as usize * self.rules.height as usize;
        let flip = if by == Color::White { 1 } else { -1 };
        let (tx, ty) = (sq as i32 % w, sq as i32 / w);
        self.board[..squares]
            .iter()
            .enumerate()
            .any(|(from, p)| p.is_some_and(|p| p.color == by && self.attacks_from(from, p, tx, ty, flip, sq)))
    }

    /// Whether a piece of `by` that may take attacks `sq`: a pseudo-royal
    /// kind that turns to stone where it takes cannot (it would lose
    /// itself), so its attacks do not count.
    pub(super) fn attacked_by_takers(&self, sq: usize, by: Color) -> bool {
        let rules = &self.rules;
        let cannot_take = |k: usize| rules.petrify_kinds.contains(&k) && rules.extinction_kinds.contains(&k);
        if !rules.petrify_kinds.iter().any(|&k| cannot_take(k)) {
            return self.attacked(sq, by);
        }
        let w = rules.width as i32;
        let squares = rules.width as usize * rules.height as usize;
        let flip = if by == Color::White { 1 } else { -1 };
        let (tx, ty) = (sq as i32 % w, sq as i32 / w);
        self.board[..squares].iter().enumerate().any(|(from, p)| {
            p.is_some_and(|p| {
                p.color == by && !cannot_take(p.kind as usize) && self.attacks_from(from, p, tx, ty, flip, sq)
            })
        })
    }

    /// Whether piece `p` on `from` attacks `sq` (at file `tx`, rank `ty`).
    /// Inlined always: it runs for every square of every attack test, and
    /// as a call of its own it made perft 1.7x slower.
    #[inline(always)]
    pub(super) fn attacks_from(&self, from: usize, p: Piece, tx: i32, ty: i32, flip: i32, sq: usize) -> bool {
        let w = self.rules.width as i32;
        let by = p.color;
        {
            let def = &self.rules.pieces[p.kind as usize];
            // Only the steps that can reach that far in that direction are walked.
            let mut mask =
                def.reach[crate::rules::reach_index((tx - from as i32 % w) * flip, (ty - from as i32 / w) * flip)];
            while mask != 0 {
                let i = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let hit = match def.steps.get(i) {
                    Some(step) if i < 63 => self.hits(from, by, step, sq),
                    // Past 63 steps the mask cannot tell them apart: try them all.
                    _ => {
                        def.steps[63.min(def.steps.len())..].iter().any(|st| st.capture && self.hits(from, by, st, sq))
                    }
                };
                if hit {
                    return true;
                }
            }
            !self.rules.diagonal_lines.is_empty() && self.palace_hits(from, p, sq)
        }
    }

    /// The squares of `by`'s pieces that attack `sq`.
    pub fn attackers(&self, sq: usize, by: Color) -> Vec<usize> {
        let w = self.rules.width as i32;
        let flip = if by == Color::White { 1 } else { -1 };
        let (tx, ty) = (sq as i32 % w, sq as i32 / w);
        let squares = self.rules.width as usize * self.rules.height as usize;
        (0..squares)
            .filter(|&from| {
                self.board[from].is_some_and(|p| p.color == by && self.attacks_from(from, p, tx, ty, flip, sq))
            })
            .collect()
    }

    /// Whether `step` of a piece of `color` on `from` captures on `sq`.
    pub(super) fn hits(&self, from: usize, color: Color, step: &Step, sq: usize) -> bool {
        let w = self.rules.width as i32;
        let flip = if color == Color::White { 1 } else { -1 };
        let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
        // Where `sq` lies from `from`: the step must point at it, a whole number of times.
        let (fx, fy) = ((sq as i32 % w) - (from as i32 % w), (sq as i32 / w) - (from as i32 / w));
        let times = if dx != 0 { fx / dx } else { fy / dy };
        if times < 1 || times * dx != fx || times * dy != fy {
            return false;
        }
        let rules = &self.rules;
        if let Some(p) = self.board[from] {
            if rules.mobility[color as usize][p.kind as usize].as_ref().is_some_and(|region| !region[sq]) {
                return false;
            }
            if step.dx != 0
                && rules.pieces[p.kind as usize].soldier
                && self.own_rank(color, self.rank_of(from)) < rules.soldier_rank
            {
                return false;
            }
        }
        if step.range == 1 && step.hop == Hop::None {
            return times == 1 && !(step.lame && self.lame_blocked(from, dx, dy));
        }
        if step.hop == Hop::None && step.range != 0 && times > step.range as i32 {
            return false;
        }
        // The squares between: empty for a slider, one piece for a cannon,
        // one piece right before the target for a grasshopper.
        let at = |k: i32| (from as i32 + k * dx + k * dy * w) as usize;
        let between = (1..times).filter(|&k| self.board[at(k)].is_some());
        match step.hop {
            Hop::None => between.count() == 0,
            Hop::Cannon => between.count() == 1,
            Hop::JanggiCannon => {
                let screens: Vec<i32> = between.take(2).collect();
                matches!(screens[..], [k] if !self.janggi_cannon(at(k))) && !self.janggi_cannon(sq)
            }
            Hop::Grasshopper => times >= 2 && between.collect::<Vec<_>>() == [times - 1],
        }
    }

    /// Whether `color`'s royal piece is attacked.
    pub fn in_check(&self, color: Color) -> bool {
        self.rules.has_royal && self.royal_square(color).is_some_and(|k| self.attacked(k, color.opponent()))
    }

    /// The squares of `color`'s pseudo-royal pieces: of each extinction kind
    /// of which it has at most one more than the extinction count.
    pub fn pseudo_royals(&self, color: Color) -> Vec<usize> {
        let rules = &self.rules;
        if !rules.pseudo_royal {
            return Vec::new();
        }
        let squares = rules.width as usize * rules.height as usize;
        let mut out = Vec::new();
        for &kind in &rules.extinction_kinds {
            let start = out.len();
            out.extend(
                (0..squares).filter(|&sq| self.board[sq].is_some_and(|p| p.color == color && p.kind as usize == kind)),
            );
            if out.len() - start > rules.extinction_count as usize + 1 {
                out.truncate(start);
            }
        }
        out
    }

    /// Whether every one of `color`'s extinction pieces stands attacked
    /// (`dupleCheck`: a check, though none of them is pseudo-royal alone).
    pub fn duple_checked(&self, color: Color) -> bool {
        let rules = &self.rules;
        if !rules.duple_check {
            return false;
        }
        let squares = rules.width as usize * rules.height as usize;
        let mut mine = (0..squares).filter(|&sq| {
            self.board[sq].is_some_and(|p| p.color == color && rules.extinction_kinds.contains(&(p.kind as usize)))
        });
        let mut any = false;
        let all = mine.all(|sq| {
            any = true;
            self.attacked_by_takers(sq, color.opponent())
        });
        any && all
    }

    /// Whether `sq` touches one of `royals` (in atomic, touching kings cannot take each other).
    pub(super) fn touches(&self, sq: usize, royals: &[usize]) -> bool {
        let w = self.rules.width as i32;
        royals.iter().any(|&r| {
            let (dx, dy) = ((r as i32 % w - sq as i32 % w).abs(), (r as i32 / w - sq as i32 / w).abs());
            dx <= 1 && dy <= 1 && r != sq
        })
    }

    /// Whether one of `color`'s pseudo-royal pieces stands attacked (a
    /// touching enemy pseudo-royal shields it where captures explode).
    pub fn pseudo_royal_attacked(&self, color: Color) -> bool {
        let theirs = self.pseudo_royals(color.opponent());
        self.pseudo_royals(color)
            .into_iter()
            .any(|sq| !(self.rules.blast && self.touches(sq, &theirs)) && self.attacked_by_takers(sq, color.opponent()))
    }

    /// Whether the two royal pieces stand on one file or rank with nothing between.
    pub(super) fn generals_face(&self) -> bool {
        let (Some(a), Some(b)) = (self.royal_square(Color::White), self.royal_square(Color::Black)) else {
            return false;
        };
        let w = self.rules.width as usize;
        let step = if a % w == b % w {
            w
        } else if a / w == b / w {
            1
        } else {
            return false;
        };
        (a.min(b) + step..a.max(b)).step_by(step).all(|s| self.board[s].is_none())
    }

    /// Whether `by` attacks `sq` with the pieces on `gone` lifted off.
    pub(super) fn attacked_without(&self, sq: usize, by: Color, gone: &[usize]) -> bool {
        let mut lifted = self.clone();
        for &g in gone {
            lifted.board[g] = None;
        }
        lifted.attacked(sq, by)
    }
}
