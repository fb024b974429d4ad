//! PGN out and in. Out: the Seven Tag Roster, `WhiteEngine`/`BlackEngine`
//! (an engine's own name, where the event named it otherwise), `Variant`, `FEN`/`SetUp` when
//! the game did not start from the variant's start, `TimeControl`,
//! `Termination` (the PGN standard's category) with the precise reason as the
//! last comment, `PlyCount`, `WhitePonderHits`/`BlackPonderHits` for an
//! engine that pondered (`hits/ponders`), and `[%clk]`/`[%emt]` after every move (with
//! `[%eval]` when the mover reported a score, and before them the mover's
//! own score, depth and time as cutechess-cli and fastchess write them,
//! with fastchess's nodes, selective depth, nps, latency and pv when known:
//! `{+0.31/18 0.072s, n=2000, sd=22, nps=27777, latency=1ms, pv="e2e4 e7e5" ...}`). Chess
//! moves are SAN, so python-chess and pgn-extract read the files unchanged.
//! In: tags and movetext (comments, variations and NAGs skipped), for replay;
//! a `(` glued to a move (tavreli's `d4-d5(2)`) is part of the move.

use std::fmt::Write as _;

use super::{EventInfo, RecordFormat};
use arbiter_core::model::{GameRecord, Seat};

/// The PGN format (PDN for draughts, by the variant's record tags).
pub struct Pgn;

impl RecordFormat for Pgn {
    fn name(&self) -> &'static str {
        "pgn"
    }

    fn title(&self) -> &'static str {
        "PGN"
    }
    fn media_type(&self) -> &'static str {
        "application/x-chess-pgn"
    }
    fn extension(&self) -> &'static str {
        "pgn"
    }

    fn write(&self, record: &GameRecord, event: &EventInfo) -> String {
        write_game(record, event)
    }
}

/// A mover's score as `[%eval]` writes it, from the first player's side
/// (lichess's convention): pawns with two decimals, or `#N` / `#-N` for a
/// mate in N moves (scores of ±30000 less the distance).
pub fn eval_text(score: i32, mover: Seat) -> String {
    let white = if mover == Seat::FIRST { score } else { -score };
    match white {
        s if s.abs() >= 29_000 => format!("#{}{}", if s < 0 { "-" } else { "" }, 30_000 - s.abs()),
        s => format!("{:.2}", s as f64 / 100.0),
    }
}

/// A move's search as cutechess-cli and fastchess begin its comment: the
/// mover's own score (pawns, or `+M3`/`-M3` for a mate in 3 moves), `/depth`
/// when reported, and its time in seconds: `+0.31/18 0.072s`.
pub fn search_text(score: i32, depth: Option<u32>, used_us: u64) -> String {
    let score = match score {
        s if s.abs() >= 29_000 => format!("{}M{}", if s < 0 { "-" } else { "+" }, 30_000 - s.abs()),
        s => format!("{:+.2}", s as f64 / 100.0),
    };
    let depth = depth.map(|d| format!("/{d}")).unwrap_or_default();
    format!("{score}{depth} {:.3}s", used_us as f64 / 1e6)
}

/// What else an engine said of its search, as fastchess's optional PGN
/// fields write it after the score: `, n=NODES, sd=SELDEPTH, nps=N,
/// latency=MSms, pv="MOVES"` (each only when known; latency is the time
/// the host measured less the time the engine reported).
pub fn search_extras(ply: &arbiter_core::model::PlyRecord) -> String {
    let mut out = String::new();
    if let Some(n) = ply.nodes {
        let _ = write!(out, ", n={n}");
    }
    if let Some(sd) = ply.seldepth {
        let _ = write!(out, ", sd={sd}");
    }
    if let Some(n) = ply.nodes.filter(|_| ply.used_us > 0) {
        let _ = write!(out, ", nps={}", (n as u128 * 1_000_000 / ply.used_us as u128) as u64);
    }
    if let Some(reported) = ply.reported_ms {
        let _ = write!(out, ", latency={}ms", (ply.used_us / 1000).saturating_sub(reported));
    }
    if let Some(pv) = &ply.pv {
        let pv: String = pv.chars().filter(|c| !matches!(c, '"' | '{' | '}') && !c.is_control()).collect();
        let _ = write!(out, ", pv=\"{pv}\"");
    }
    out
}

/// `H:MM:SS.mmm` as `[%clk]` and `[%emt]` write time.
pub fn clock_text(ms: u64) -> String {
    let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    if frac == 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}.{frac:03}")
    }
}

/// A tag value as PGN writes it: backslashes and quotes escaped, and any
/// control character (a line break would end the tag) a space.
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// A tag name as PGN allows it (a letter or digit, then letters, digits and
/// `_+#=:-`), any other character an underscore; `None` for an empty name
/// or one of the tags the writer writes itself (a record's own tags never
/// stand in for `White` or `Result`).
fn tag_name(name: &str) -> Option<String> {
    let mut clean: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "_+#=:-".contains(c) { c } else { '_' }).collect();
    if !clean.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        clean.insert(0, 'X');
    }
    (!name.is_empty() && !WRITER_TAGS.contains(&clean.as_str())).then_some(clean)
}

/// Text inside a `{...}` comment: a closing brace would end it early and a
/// line break could start a `%` escape line, so each is made harmless.
fn comment(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '}' {
                ')'
            } else if c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The tags [`write_game`] writes itself; any other tag in its output is one
/// of the variant's record tags.
pub const WRITER_TAGS: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "WhiteEngine",
    "BlackEngine",
    "Result",
    "Variant",
    "SetUp",
    "FEN",
    "Viewer",
    "TimeControl",
    "WhiteTimeControl",
    "BlackTimeControl",
    "Termination",
    "PlyCount",
    "Plugin",
    "VariantOptions",
    "WhitePonderHits",
    "BlackPonderHits",
];

/// Writes one game as PGN.
pub fn write_game(record: &GameRecord, event: &EventInfo) -> String {
    let plies = &record.plies;
    let mut out = String::new();
    let player = |i: usize| record.players.get(i).map(String::as_str).unwrap_or("?");
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    tag("Event", if event.event.is_empty() { "arbiter game" } else { &event.event });
    tag("Site", "arbiter");
    tag("Date", &arbiter_core::model::calendar::date(record.started_at, '.'));
    tag("Round", &event.round.max(1).to_string());
    tag("White", player(0));
    tag("Black", player(1));
    // The name an engine gave itself, where the event named it otherwise.
    for (i, side) in [(0, "WhiteEngine"), (1, "BlackEngine")] {
        if let Some(engine) = record.engines.get(i).filter(|e| !e.is_empty() && e.as_str() != player(i)) {
            tag(side, engine);
        }
    }
    tag("Result", record.result.pgn());
    // Chess960 under the name python-chess, lichess and the chess GUIs read.
    let chess960 = record.variant == "chess" && record.options.get("chess960") == Some(&serde_json::Value::Bool(true));
    tag("Variant", if chess960 { "Chess960" } else { &record.variant });
    for (name, value) in &record.record_tags {
        if let Some(name) = tag_name(name) {
            tag(&name, value);
        }
    }
    // A redacted export of a hidden-information game has no full position.
    if !record.standard_start && !record.start_position.is_empty() {
        tag("SetUp", "1");
        tag("FEN", &record.start_position);
    }
    if let Some(viewer) = record.viewer {
        tag("Viewer", &viewer.to_string());
    }
    let tcs: Vec<String> = record.time_controls.iter().map(|t| t.pgn_tag()).collect();
    match tcs.first() {
        Some(first) if tcs.iter().all(|t| t == first) => tag("TimeControl", first),
        Some(first) => {
            tag("WhiteTimeControl", first);
            tag("BlackTimeControl", tcs.get(1).map(String::as_str).unwrap_or("-"));
        }
        None => tag("TimeControl", "-"),
    }
    tag("Termination", record.result.termination.pgn_category());
    tag("PlyCount", &plies.len().to_string());
    tag("Plugin", &record.plugin);
    // An engine that pondered: its hits of the moves it pondered on (`7/10`).
    for (i, side) in [(Seat::FIRST, "WhitePonderHits"), (Seat::SECOND, "BlackPonderHits")] {
        let pondered: Vec<bool> = plies.iter().filter(|p| p.player == i).filter_map(|p| p.ponder_hit).collect();
        if !pondered.is_empty() {
            tag(side, &format!("{}/{}", pondered.iter().filter(|&&hit| hit).count(), pondered.len()));
        }
    }
    if !record.options.is_empty() {
        tag("VariantOptions", &serde_json::Value::Object(record.options.clone()).to_string());
    }
    out.push('\n');
    // Numbered by full moves ("1. e4 e5 2. Nf3"); "1... e5" when the second
    // player starts, and "2... a3" when a player's move follows two in a row
    // by the first (a Bluff chess decision): a number once per full move,
    // counted from the start position's own move number (a FEN's last field).
    let first = start_move_number(record);
    let mut move_no = first - 1;
    let (mut prev, mut run) = (None, 0);
    let mut line = String::new();
    let mut text = String::new();
    for ply in plies.iter() {
        let first_seat = Some(Seat::FIRST);
        if ply.player == Seat::FIRST && prev != first_seat {
            move_no += 1;
            let _ = write!(text, "{move_no}. ");
        } else if ply.player != Seat::FIRST && (prev.is_none() || prev != first_seat || run > 1) {
            move_no = move_no.max(first);
            let _ = write!(text, "{move_no}... ");
        }
        run = if prev == Some(ply.player) { run + 1 } else { 1 };
        prev = Some(ply.player);
        let _ = write!(text, "{} {{", ply.text);
        if let Some(score) = ply.score {
            let _ = write!(text, "{} ", search_text(score, ply.depth, ply.used_us) + &search_extras(ply));
        }
        if let Some(clk) = ply.clock_ms {
            let _ = write!(text, "[%clk {}] ", clock_text(clk));
        }
        if let Some(score) = ply.score {
            let _ = write!(text, "[%eval {}] ", eval_text(score, ply.player));
        }
        let _ = write!(text, "[%emt {}]}} ", clock_text(ply.used_us / 1000));
        wrap(&mut out, &mut line, &text);
        text.clear();
    }
    let _ = write!(text, "{{{}}} {}", comment(&record.result.termination.to_string()), record.result.pgn());
    wrap(&mut out, &mut line, &text);
    out.push_str(line.trim_end());
    out.push_str("\n\n");
    out
}

/// The full-move number a game's movetext starts from: a set-up FEN's last
/// field (`... b - - 0 3` starts at move 3), else 1.
fn start_move_number(record: &GameRecord) -> u32 {
    if record.standard_start {
        return 1;
    }
    // FEN's six fields (or more: check counters), the move number last.
    let fields: Vec<&str> = record.start_position.split_whitespace().collect();
    let number = fields.last().filter(|_| fields.len() >= 6).and_then(|n| n.parse().ok());
    number.filter(|&n| n >= 1).unwrap_or(1)
}

/// Appends `piece` to the current line, breaking lines at 80 columns.
fn wrap(out: &mut String, line: &mut String, piece: &str) {
    for word in piece.split_inclusive(' ') {
        if line.len() + word.trim_end().len() > 79 && !line.is_empty() {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clear();
        }
        line.push_str(word);
    }
}

/// A game read back from PGN: its tags and its move texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// Move texts (SAN for chess), in order.
    pub moves: Vec<String>,
}

impl PgnGame {
    /// The value of tag `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Reads every game of a PGN text.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    let mut parser = Parser::default();
    let mut games: Vec<PgnGame> = text.lines().filter_map(|line| parser.line(line)).collect();
    games.extend(parser.finish());
    games
}

/// The longest line a PGN stream may have (movetext on one line included).
pub const MOST_LINE_BYTES: usize = 16 << 20;

/// A PGN stream that cannot be read: the line and why.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct PgnReadError {
    /// The 1-based line.
    pub line: usize,
    /// What went wrong.
    pub reason: String,
}

/// The games of a PGN stream, one at a time: a book or a record file of
/// any size is read in the memory of its largest game. Bytes that are not
/// UTF-8 are read as U+FFFD.
pub struct GameReader<R> {
    input: R,
    parser: Parser,
    buffer: Vec<u8>,
    line: usize,
    done: bool,
}

impl<R: std::io::BufRead> GameReader<R> {
    /// A reader of the games of `input`.
    pub fn new(input: R) -> Self {
        GameReader { input, parser: Parser::default(), buffer: Vec::new(), line: 0, done: false }
    }
}

impl<R: std::io::BufRead> Iterator for GameReader<R> {
    type Item = Result<PgnGame, PgnReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::{BufRead as _, Read as _};
        while !self.done {
            self.buffer.clear();
            self.line += 1;
            let read = (&mut self.input).take(MOST_LINE_BYTES as u64 + 1).read_until(b'\n', &mut self.buffer);
            match read {
                Err(e) => {
                    self.done = true;
                    return Some(Err(PgnReadError { line: self.line, reason: e.to_string() }));
                }
                Ok(0) => {
                    self.done = true;
                    return self.parser.finish().map(Ok);
                }
                Ok(n) if n > MOST_LINE_BYTES => {
                    self.done = true;
                    let reason = format!("longer than {} MiB", MOST_LINE_BYTES >> 20);
                    return Some(Err(PgnReadError { line: self.line, reason }));
                }
                Ok(_) => {
                    let text = String::from_utf8_lossy(&self.buffer);
                    if let Some(game) = self.parser.line(text.trim_end_matches(['\n', '\r'])) {
                        return Some(Ok(game));
                    }
                }
            }
        }
        None
    }
}

/// The PGN reader's state between lines.
#[derive(Default)]
struct Parser {
    game: PgnGame,
    in_moves: bool,
    in_comment: bool,
    variation_depth: u32,
}

impl Parser {
    /// Reads one line; a game when this line's tag ends the one before.
    fn line(&mut self, raw: &str) -> Option<PgnGame> {
        let line = raw.trim();
        let mut finished = None;
        if !self.in_comment && self.variation_depth == 0 && line.starts_with('[') && line.ends_with(']') {
            if self.in_moves {
                finished = self.finish();
            }
            if let Some((name, value)) = line[1..line.len() - 1].split_once(' ') {
                let value = value.trim().trim_matches('"').replace("\\\"", "\"").replace("\\\\", "\\");
                self.game.tags.push((name.to_string(), value));
            }
            return finished;
        }
        if line.is_empty() {
            return None;
        }
        self.in_moves = true;
        let mut token = String::new();
        // A '(' right after a move's characters belongs to the move (tavreli's
        // `d4-d5(2)`); one after a space opens a variation.
        let mut in_token_paren = false;
        for c in line.chars().chain(std::iter::once(' ')) {
            if self.in_comment {
                self.in_comment = c != '}';
                continue;
            }
            if in_token_paren {
                token.push(c);
                in_token_paren = c != ')';
                continue;
            }
            match c {
                '(' if !token.is_empty() && self.variation_depth == 0 => {
                    token.push(c);
                    in_token_paren = true;
                    continue;
                }
                // A move before a comment, a variation or its end is whole:
                // kept when it is in the main line.
                c if c.is_whitespace() || matches!(c, '{' | '(' | ')') => {
                    if self.variation_depth == 0 {
                        push_token(&mut self.game, &token);
                    }
                    token.clear();
                    match c {
                        '{' => self.in_comment = true,
                        '(' => self.variation_depth += 1,
                        ')' => self.variation_depth = self.variation_depth.saturating_sub(1),
                        _ => {}
                    }
                }
                c => token.push(c),
            }
        }
        None
    }

    /// The game read so far, if it has a tag or a move (comments alone are none).
    fn finish(&mut self) -> Option<PgnGame> {
        let game = std::mem::take(&mut self.game);
        self.in_moves = false;
        (!game.tags.is_empty() || !game.moves.is_empty()).then_some(game)
    }
}

fn push_token(game: &mut PgnGame, token: &str) {
    let t = token.trim();
    if t.is_empty() || t.starts_with('$') || matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return;
    }
    // Strip a leading move number ("12." or "12..."), not a square ("32-28").
    let t = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) if i > 0 && t[i..].starts_with('.') => t[i..].trim_start_matches('.'),
        _ => t,
    };
    if !t.is_empty() {
        game.moves.push(t.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_skips_comments_variations_and_nags_but_keeps_glued_counts() {
        let games = read_games(
            "[Variant \"tavreli\"]\n\n1. e4 {[%clk 0:01:00]} $1 (1. d4 d5 (1... c5)) e5 2. d4-d5(2) 32-28 28x19 *\n",
        );
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].tag("Variant"), Some("tavreli"));
        assert_eq!(games[0].moves, vec!["e4", "e5", "d4-d5(2)", "32-28", "28x19"]);
        // A variation's last move right before its `)` stays out of the main line.
        let games = read_games("1. d4 {main} (1. c4) d5 (1... Nf6)2. c4 *\n");
        assert_eq!(games[0].moves, vec!["d4", "d5", "c4"]);
    }

    fn movetext(players: &[u32]) -> String {
        let record = arbiter_testing::record(players);
        let pgn = write_game(&record, &EventInfo { event: "e".into(), round: 1, tournament: None });
        let moves = pgn.split("\n\n").nth(1).unwrap();
        // Without the clock comments.
        let mut out = String::new();
        let mut depth = 0;
        for c in moves.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn movetext_after_a_set_up_position_counts_from_its_move_number() {
        let write = |start: &str, players: &[u32]| {
            let record =
                GameRecord { start_position: start.into(), standard_start: false, ..arbiter_testing::record(players) };
            let pgn = write_game(&record, &EventInfo::default());
            pgn.split("\n\n").nth(1).unwrap().to_string()
        };
        let white = write("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", &[0, 1, 0]);
        assert!(white.starts_with("3. m0 ") && white.contains("4. m2 "), "{white}");
        let black = write("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", &[1, 0]);
        assert!(black.starts_with("2... m0 ") && black.contains("3. m1 "), "{black}");
        // A position text without a move number starts at 1.
        assert!(write("W:W31,32:B1,2", &[0]).starts_with("1. m0 "));
    }

    #[test]
    fn an_engines_search_is_written_as_fastchess_writes_it() {
        let record = arbiter_testing::record(&[0, 1, 0, 1]);
        let pgn = write_game(&record, &EventInfo { event: "e".into(), round: 1, tournament: None }).replace('\n', " ");
        // Ply 3: score -3, depth 13, 3000 nodes in 4.5 ms, nothing reported.
        assert!(
            pgn.contains("m3 {-0.03/13 0.004s, n=3000, sd=17, nps=666666, pv=\"e2e4 e7e5\" [%clk 0:00:59.997]"),
            "{pgn}"
        );
        // Ply 0: reported 0 ms of 0 used: no latency to speak of.
        assert!(pgn.contains("m0 {+0.00/10 0.000s, n=0, sd=14, latency=0ms [%clk"), "{pgn}");
    }

    #[test]
    fn moves_are_numbered_once_per_full_move_even_when_a_player_moves_twice() {
        assert_eq!(movetext(&[0, 1, 0, 1]), "1. m0 m1 2. m2 m3 1/2-1/2");
        assert_eq!(movetext(&[1, 0, 1]), "1... m0 2. m1 m2 1/2-1/2");
        // A Bluff chess decision: the first player moves twice.
        assert_eq!(movetext(&[0, 1, 0, 0, 1, 0]), "1. m0 m1 2. m2 m3 2... m4 3. m5 1/2-1/2");
        assert_eq!(movetext(&[0, 1, 1, 0]), "1. m0 m1 1... m2 2. m3 1/2-1/2");
    }

    #[test]
    fn evaluations_and_clocks_are_written_as_pgn_expects() {
        assert_eq!(
            (eval_text(35, Seat::FIRST), eval_text(35, Seat::SECOND), eval_text(-120, Seat::SECOND)),
            ("0.35".into(), "-0.35".into(), "1.20".into())
        );
        assert_eq!((eval_text(29_997, Seat::FIRST), eval_text(29_997, Seat::SECOND)), ("#3".into(), "#-3".into()));
        assert_eq!(search_text(31, Some(18), 72_400), "+0.31/18 0.072s");
        assert_eq!(search_text(-120, None, 1_500_000), "-1.20 1.500s");
        assert_eq!(
            (search_text(29_997, Some(30), 0), search_text(-29_998, Some(5), 0)),
            ("+M3/30 0.000s".into(), "-M2/5 0.000s".into())
        );
        assert_eq!(clock_text(3_723_004), "1:02:03.004");
        assert_eq!(clock_text(60_000), "0:01:00");
    }

    /// A worker's record can carry any tag names and texts: none can add a
    /// tag, change one the writer writes, or end a comment early.
    #[test]
    fn tag_names_values_and_comments_from_a_record_cannot_break_out() {
        let mut r = arbiter_testing::record(&[0, 1]);
        r.result.outcome = arbiter_api::Outcome::Draw;
        r.result.termination = crate::referee::Termination::DrawAgreed;
        r.record_tags = vec![
            ("X \"1\"]\n[White \"Magnus".into(), "v".into()),
            ("Result".into(), "1-0".into()),
            ("Variant".into(), "crazyhouse".into()),
            ("Opening".into(), "Sicilian\"]\n[Black \"Hikaru\\".into()),
            ("".into(), "empty".into()),
        ];
        r.engines = vec!["Stock\nfish".into(), String::new()];
        r.plies[0].pv = Some("e2e4} 1-0 {\n%".into());
        let pgn = write_game(&r, &EventInfo::default());
        for line in pgn.lines().take_while(|l| !l.is_empty()) {
            let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")).unwrap_or_else(|| panic!("{line}"));
            let (name, value) = inner.split_once(" \"").unwrap();
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || "_+#=:-".contains(c)), "{line}");
            assert!(!value.replace("\\\\", "").replace("\\\"", "").contains('"'), "{line}");
        }
        let games = read_games(&pgn);
        assert_eq!(games.len(), 1, "{pgn}");
        let g = &games[0];
        assert_eq!((g.tag("White"), g.tag("Black"), g.tag("Result")), (Some("a"), Some("b"), Some("1/2-1/2")), "{pgn}");
        assert_eq!(pgn.matches("[Result ").count(), 1, "{pgn}");
        assert_eq!(pgn.matches("[Variant ").count(), 1, "an ini variant's own Variant tag is not written twice: {pgn}");
        assert!(pgn.contains("[X__1____White__Magnus \"v\"]"), "{pgn}");
        assert!(pgn.contains("[Opening \"Sicilian\\\"] [Black \\\"Hikaru\\\\\"]"), "{pgn}");
        assert!(pgn.contains("pv=\"e2e4 1-0 %\""), "{pgn}");
    }
}
