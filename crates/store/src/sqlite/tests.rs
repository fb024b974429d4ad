//! The SQLite backend's own cases: upgrades from older schemas, damaged
//! rows, error texts (what every backend does is in `store::tests`).

use rusqlite::{params, Connection};
use rusqlite_migration::Migrations;

use super::migration_steps;
use crate::tests::{sorted, sqlite_path, store_paired_games};
use crate::{Store, FORGET_TALLIES};
use arbiter_core::model::GameRecord;
use arbiter_play::record::{pgn, EventInfo};
use arbiter_testing::record;

#[test]
fn a_stored_game_reads_back_as_the_same_record() {
    let store = Store::open(&sqlite_path("round-trip")).unwrap();
    let r = record(&[0, 1, 0, 1, 1]);
    let event = EventInfo { event: "e".into(), round: 3, tournament: None };
    let id = store.add_game(&r, &event).unwrap();
    let g = store.game(id).unwrap().unwrap();
    assert_eq!(g.record, r);
    assert_eq!(g.event().event, "e");
    assert_eq!(g.summary.result, "1/2-1/2");
    assert_eq!(g.summary.plies, 5);
    assert_eq!(g.pgn(), pgn::write_game(&r, &event));
}

#[test]
fn games_stored_before_whole_records_are_rebuilt_from_their_columns() {
    let path = sqlite_path("legacy");
    // A store at schema 2, with one game written as arbiter wrote it then.
    let r = GameRecord { standard_start: false, ..record(&[0, 1, 0]) };
    let event = EventInfo { event: "old".into(), round: 1, tournament: None };
    {
        let mut conn = Connection::open(&path).unwrap();
        Migrations::new(migration_steps()[..2].to_vec()).to_latest(&mut conn).unwrap();
        conn.execute(
            "INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls, options,
                start_position, result, winner, termination, plies, moves, final_position, started_at,
                duration_ms, pgn, termination_kind)
             VALUES ('old', 1, 'x', 'x 1', 'a', 'b', '[\"a\",\"b\"]', '[\"60+1\",\"60+1\"]', '{\"size\":3}', 's',
                '1/2-1/2', NULL, 'draw agreed', 3, ?1, 'f', 1700000000, 1234, ?2, 'draw_agreed')",
            params![serde_json::to_string(&r.plies).unwrap(), pgn::write_game(&r, &event)],
        )
        .unwrap();
    }
    let g = Store::open(&path).unwrap().games(None).unwrap().pop().unwrap();
    assert_eq!(g.record, r, "the record tags and the set-up start come from the stored PGN");
}

#[test]
fn a_store_written_before_tallies_counts_its_games_when_upgraded() {
    let path = sqlite_path("tallies-legacy");
    let t = store_paired_games(&Store::open(&path).unwrap());
    let expected = sorted(Store::open(&path).unwrap().tallies(t).unwrap());
    Connection::open(&path).unwrap().execute_batch(FORGET_TALLIES).unwrap();
    assert_eq!(sorted(Store::open(&path).unwrap().tallies(t).unwrap()), expected);
}

#[test]
fn a_damaged_record_is_an_error_naming_the_store() {
    let path = sqlite_path("damaged");
    let store = Store::open(&path).unwrap();
    store.add_game(&record(&[0]), &EventInfo::default()).unwrap();
    Connection::open(&path).unwrap().execute("UPDATE games SET record = '{'", []).unwrap();
    let e = store.games(None).unwrap_err().to_string();
    assert!(e.starts_with(&format!("store {}", path.display())), "{e}");
}

#[test]
fn an_export_reads_every_readable_game_and_names_each_damaged_row() {
    let path = sqlite_path("damaged-one");
    let store = Store::open(&path).unwrap();
    for _ in 0..3 {
        store.add_game(&record(&[0, 1]), &EventInfo::default()).unwrap();
    }
    Connection::open(&path).unwrap().execute("UPDATE games SET record = '{' WHERE id = 2", []).unwrap();
    let (games, skipped) = store.readable_games(None).unwrap();
    assert_eq!(games.iter().map(|g| g.summary.id).collect::<Vec<_>>(), vec![1, 3]);
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].starts_with("game 2: its stored record is unreadable"), "{skipped:?}");
}

#[test]
fn a_store_error_says_its_cause_once() {
    let dir = std::env::temp_dir().join(format!("arbiter-no-such-{}", std::process::id()));
    let Err(e) = Store::open(&dir.join("missing/x.db")) else { panic!("opened") };
    let e = anyhow::Error::from(e);
    let text = format!("{e:#}");
    assert_eq!(text.matches("unable to open database file").count(), 1, "{text}");
}
