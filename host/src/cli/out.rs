//! Everything the command line prints goes through here, and a closed
//! standard output (`arbiter play chess | head`) is a value, [`Closed`],
//! that ends the command quietly and successfully, as ripgrep does; any
//! other write error (`> /dev/full`) is an error like any other.

use std::io::Write;

/// Standard output was closed by its reader.
#[derive(Debug, thiserror::Error)]
#[error("standard output closed")]
pub struct Closed;

/// Why printing failed.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    /// The reader went away.
    #[error(transparent)]
    Closed(#[from] Closed),
    /// Another write error.
    #[error("cannot write to standard output: {0}")]
    Io(std::io::Error),
}

/// Writes `args` to standard output, as it is (no newline added).
pub fn text(args: std::fmt::Arguments) -> Result<(), PrintError> {
    write_to(&mut std::io::stdout().lock(), args)
}

/// Writes `args` to `out` and flushes it; a broken pipe is [`Closed`].
fn write_to(out: &mut impl Write, args: std::fmt::Arguments) -> Result<(), PrintError> {
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Closed.into()),
        Err(e) => Err(PrintError::Io(e)),
    }
}

/// Prints where no error can be returned (a progress printer called by
/// the library): a closed output ends the program quietly and
/// successfully, after the engine log is written; another error is warned
/// of and the printing goes on.
pub fn or_quit(printed: Result<(), PrintError>) {
    match printed {
        Ok(()) => {}
        Err(PrintError::Closed(_)) => {
            arbiter_core::process::flush_engine_log();
            std::process::exit(0);
        }
        Err(e) => tracing::warn!("{e}"),
    }
}

/// A line on standard output; `?` hands a closed output up as [`Closed`].
macro_rules! say {
    () => { $crate::cli::out::text(format_args!("\n"))? };
    ($($arg:tt)*) => { $crate::cli::out::text(format_args!("{}\n", format_args!($($arg)*)))? };
}

/// Text on standard output with no newline added (`?` as for [`say!`]).
macro_rules! say_text {
    ($($arg:tt)*) => { $crate::cli::out::text(format_args!($($arg)*))? };
}

pub(crate) use {say, say_text};

/// A line on standard output where no error can be returned (see [`or_quit`]).
macro_rules! say_or_quit {
    ($($arg:tt)*) => { $crate::cli::out::or_quit($crate::cli::out::text(format_args!("{}\n", format_args!($($arg)*)))) };
}

/// Text with no newline added where no error can be returned (see [`or_quit`]).
macro_rules! say_text_or_quit {
    ($($arg:tt)*) => { $crate::cli::out::or_quit($crate::cli::out::text(format_args!($($arg)*))) };
}

pub(crate) use {say_or_quit, say_text_or_quit};

/// A game's players as the one-game lines write them: `a vs b`.
pub fn players(record: &arbiter_core::model::GameRecord) -> String {
    record.players.join(" vs ")
}

/// A game's result as the one-game lines write them: `1-0 {checkmate}`.
pub fn result(record: &arbiter_core::model::GameRecord) -> String {
    format!("{} {{{}}}", record.result.pgn(), record.result.termination)
}

/// Each pondering entrant's ponder-hit rate, `Ponder hits: sf 61.0%
/// (122/200), ...`; `None` when no entrant ponders.
pub fn ponder_hits(counts: &[(String, u64, u64)]) -> Option<String> {
    let each: Vec<String> = counts
        .iter()
        .map(|(name, hits, of)| match of {
            0 => format!("{name} none reported"),
            _ => format!("{name} {:.1}% ({hits}/{of})", *hits as f64 * 100.0 / *of as f64),
        })
        .collect();
    (!each.is_empty()).then(|| format!("Ponder hits: {}", each.join(", ")))
}

/// A tournament game's number as the lines write it: its place in the
/// schedule, from 1 (0 for a game of no tournament).
pub fn game_number(event: &arbiter_play::record::EventInfo) -> u32 {
    event.tournament.as_ref().map_or(0, |t| t.index + 1)
}

#[cfg(test)]
mod tests {
    use super::{game_number, players, ponder_hits, result, write_to, PrintError};

    /// A reader that went away, or a disk that is full.
    struct Failing(std::io::ErrorKind);

    impl std::io::Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(self.0.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_reader_is_closed_and_any_other_failure_an_error_saying_so() {
        let mut written = Vec::new();
        write_to(&mut written, format_args!("{} {}\n", "a", 1)).unwrap();
        assert_eq!(written, b"a 1\n");
        let closed = write_to(&mut Failing(std::io::ErrorKind::BrokenPipe), format_args!("x"));
        assert!(matches!(closed, Err(PrintError::Closed(_))));
        let full = write_to(&mut Failing(std::io::ErrorKind::StorageFull), format_args!("x")).unwrap_err();
        assert!(full.to_string().starts_with("cannot write to standard output: "), "{full}");
    }

    #[test]
    fn one_game_lines_name_the_players_and_the_result_with_its_reason() {
        let mut r = arbiter_testing::record(&[0, 1]);
        r.result.outcome = arbiter_api::Outcome::Win(1);
        r.result.termination = arbiter_core::verdict::Termination::Resignation;
        assert_eq!(players(&r), "a vs b");
        assert_eq!(result(&r), "0-1 {resignation}");
        let mut event = arbiter_play::record::EventInfo { event: "e".into(), round: 1, tournament: None };
        assert_eq!(game_number(&event), 0);
        event.tournament =
            Some(arbiter_play::record::TournamentSlot { id: 3, index: 4, pair: Some(4), seats: vec![0, 1] });
        assert_eq!(game_number(&event), 5, "counted from 1");
    }

    #[test]
    fn ponder_hits_are_a_rate_with_its_counts_and_no_line_without_a_pondering_engine() {
        assert_eq!(ponder_hits(&[]), None);
        let counts = [("sf".to_string(), 61, 100), ("new".to_string(), 0, 0)];
        assert_eq!(ponder_hits(&counts).unwrap(), "Ponder hits: sf 61.0% (61/100), new none reported");
    }
}
