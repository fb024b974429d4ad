//! Record formats, record files and per-viewer exports.

use arbiter_api::Viewer;

use super::files::RecordFiles;
use super::jsonl::JsonLine;
use super::redact::record_as_seen_by;
use super::{format, EventInfo, FORMATS};
use arbiter_core::model::{GameRecord, Seat};
use arbiter_testing::{played, race, record, secret, temp_folder};

fn event() -> EventInfo {
    EventInfo { event: "e".into(), round: 4, tournament: None }
}

#[test]
fn every_format_writes_one_game_as_text_ending_in_a_newline() {
    let r = record(&[0, 1, 0]);
    for f in FORMATS {
        let text = f.write(&r, &event());
        assert!(text.ends_with('\n') && !text.trim().is_empty(), "{}: {text:?}", f.name());
        assert_eq!(format(f.name()).unwrap().title(), f.title());
    }
    assert_eq!(format("epd").unwrap().write(&r, &event()), "f\n", "the final position");
    let e = format("xml").err().unwrap();
    assert_eq!(e.to_string(), "unknown record format 'xml' (known: pgn, jsonl, epd)");
}

#[test]
fn a_json_line_is_the_whole_record_with_its_event() {
    let r = record(&[0, 1, 0, 1]);
    let text = format("jsonl").unwrap().write(&r, &event());
    assert_eq!(text.matches('\n').count(), 1, "one line");
    let line: JsonLine = serde_json::from_str(&text).unwrap();
    assert_eq!((line.event.as_str(), line.round), ("e", 4));
    assert_eq!(line.record, r);
}

#[test]
fn record_files_get_each_game_and_a_file_that_fails_is_named_without_losing_the_others() {
    let dir = temp_folder("record-files");
    let (pgn, jsonl) = (dir.join("games.pgn"), dir.join("games.jsonl"));
    std::fs::write(&jsonl, "old\n").unwrap();
    let mut files = RecordFiles::open([("pgn", pgn.as_path()), ("jsonl", jsonl.as_path())], false).unwrap();
    assert_eq!(
        files.describe(),
        [format!("PGN file {}", pgn.display()), format!("JSON lines file {}", jsonl.display())]
    );
    assert!(files.append(&record(&[0, 1]), &event()).is_empty());
    assert!(files.append(&record(&[0]), &event()).is_empty());
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap().lines().count(), 2, "emptied first, then two games");
    assert_eq!(std::fs::read_to_string(&pgn).unwrap().matches("[Event \"e\"]").count(), 2);
    let mut again = RecordFiles::open([("jsonl", jsonl.as_path())], true).unwrap();
    again.append(&record(&[0]), &event());
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap().lines().count(), 3, "appended");
    if std::path::Path::new("/dev/full").exists() {
        let full = std::path::Path::new("/dev/full");
        let mut files = RecordFiles::open([("epd", full), ("jsonl", jsonl.as_path())], true).unwrap();
        let failures = files.append(&record(&[0]), &event());
        assert_eq!(failures.len(), 1);
        assert!(failures[0].starts_with("final positions file /dev/full: "), "{failures:?}");
        assert_eq!(std::fs::read_to_string(&jsonl).unwrap().lines().count(), 4, "the other file still got it");
    }
    let missing = dir.join("no/such/folder/x.pgn");
    let e = RecordFiles::open([("pgn", missing.as_path())], true).err().unwrap().to_string();
    assert!(e.starts_with(&format!("cannot open {}: ", missing.display())), "{e}");
    assert!(RecordFiles::open([("doc", pgn.as_path())], true)
        .err()
        .unwrap()
        .to_string()
        .contains("unknown record format 'doc'"));
}

#[test]
fn a_player_s_export_of_a_hidden_game_keeps_no_position_and_says_whose_it_is() {
    let variant = secret();
    let r = played(&variant, serde_json::json!({"secrets": "3 4"}));
    assert!(r.start_position.starts_with("3 4"), "the referee's record holds the secrets: {}", r.start_position);
    let seen = record_as_seen_by(&variant, &r, Viewer::Player(1)).unwrap();
    assert_eq!((seen.start_position.as_str(), seen.final_position.as_str()), ("", ""));
    assert_eq!(seen.viewer, Some(Viewer::Player(1)));
    assert_eq!(seen.plies.len(), r.plies.len());
    assert!(!serde_json::to_string(&seen).unwrap().contains("3 4 "), "no full position leaves");
    // A game without hidden information keeps its positions.
    let open = played(&race(arbiter_fixture::Fault::None), serde_json::json!({}));
    let seen = record_as_seen_by(&race(arbiter_fixture::Fault::None), &open, Viewer::Spectator).unwrap();
    assert_eq!((seen.start_position, seen.plies), (open.start_position, open.plies));
}

#[test]
fn a_recorded_game_replays_and_a_broken_one_is_named_by_game_and_ply() {
    use super::replay::replay_pgn;
    let variant = race(arbiter_fixture::Fault::None);
    let registry = arbiter_core::plugin::Registry::of([race(arbiter_fixture::Fault::None)]);
    let r = played(&variant, serde_json::json!({}));
    let text = format("pgn").unwrap().write(&r, &event());
    let two = format!("{text}\n{text}");
    assert_eq!(replay_pgn(&registry, two.as_bytes()), Ok(2));
    // The second game's third move made illegal.
    let mut bad = r.clone();
    bad.plies[2].text = "+7".into();
    let broken = format!("{text}\n{}", format("pgn").unwrap().write(&bad, &event()));
    let e = replay_pgn(&registry, broken.as_bytes()).unwrap_err();
    assert_eq!((e.game, e.ply), (Some(2), Some(3)), "{e}");
    assert!(e.to_string().starts_with("game 2, ply 3: move '+7'"), "{e}");
    let e = replay_pgn(&registry, &b""[..]).unwrap_err();
    assert_eq!(e.to_string(), "holds no PGN game");
    let redacted = text.replacen("[Event ", "[Viewer \"1\"]\n[Event ", 1);
    let e = replay_pgn(&registry, redacted.as_bytes()).unwrap_err().to_string();
    assert!(e.starts_with("game 1: a redacted view (Viewer \"1\")"), "{e}");
}

#[test]
fn a_stored_record_holds_when_replayed_and_each_forgery_is_named() {
    use super::replay::verify_record;
    use arbiter_api::Outcome;
    use arbiter_core::verdict::{GameResult, Termination};
    let variant = race(arbiter_fixture::Fault::None);
    let registry = arbiter_core::plugin::Registry::of([race(arbiter_fixture::Fault::None)]);
    let r = played(&variant, serde_json::json!({}));
    assert_eq!(verify_record(&registry, &r), Ok(()));
    let Outcome::Win(winner) = r.result.outcome else { panic!("the race has a winner: {:?}", r.result) };
    let forged = |change: &dyn Fn(&mut arbiter_core::model::GameRecord)| {
        let mut f = r.clone();
        change(&mut f);
        verify_record(&registry, &f).unwrap_err().to_string()
    };
    let e = forged(&|f| f.plies[2].mv = 9);
    assert!(e.starts_with("ply 3: move '"), "an illegal move: {e}");
    let e = forged(&|f| f.plies[1].player = f.plies[0].player);
    assert!(e.starts_with("ply 2: recorded as player"), "the wrong mover: {e}");
    let e = forged(&|f| f.plies[0].text = "+2".into());
    assert!(e.contains("recorded as '+2'"), "a move written as another: {e}");
    let e = forged(&|f| f.final_position = "9 9".into());
    assert!(e.starts_with("the moves end at '"), "another final position: {e}");
    let e = forged(&|f| f.result.outcome = Outcome::Win(1 - winner));
    assert!(e.contains("the rules end the game here: a win for player"), "the result turned: {e}");
    let e =
        forged(&|f| f.result = GameResult { outcome: Outcome::Win(1 - winner), termination: Termination::Resignation });
    assert!(e.contains("the rules end the game here"), "a resignation after the end: {e}");
    // Cut short: the rules end nothing there.
    let e = forged(&|f| {
        f.plies.truncate(2);
        f.final_position.clear();
    });
    assert!(e.starts_with("the moves end at '"), "{e}");
    let short = |result: GameResult| {
        let mut f = r.clone();
        f.plies.truncate(2);
        let mut game = variant.new_game(&f.options).unwrap();
        for p in &f.plies {
            game.apply(p.mv).unwrap();
        }
        f.final_position = game.position_text();
        f.result = result;
        verify_record(&registry, &f).map_err(|e| e.to_string())
    };
    // Player 0 is to move after two plies.
    assert_eq!(short(GameResult { outcome: Outcome::Win(1), termination: Termination::TimeForfeit(Some(5)) }), Ok(()));
    let e = short(GameResult { outcome: Outcome::Win(0), termination: Termination::TimeForfeit(Some(5)) }).unwrap_err();
    assert!(e.contains("the flag that falls is player 0's"), "{e}");
    let e = short(GameResult { outcome: Outcome::Win(1), termination: Termination::Rules("reached ten".into()) })
        .unwrap_err();
    assert!(e.contains("the rules do not end the game here"), "{e}");
    let e =
        short(GameResult { outcome: Outcome::Win(1), termination: Termination::IllegalMove("+1".into()) }).unwrap_err();
    assert!(e.contains("'+1' is legal here"), "{e}");
    assert_eq!(
        short(GameResult { outcome: Outcome::Win(1), termination: Termination::IllegalMove("+5".into()) }),
        Ok(())
    );
    let e = short(GameResult { outcome: Outcome::Win(1), termination: Termination::DrawAgreed }).unwrap_err();
    assert!(e.contains("an agreed draw is a draw"), "{e}");
    let e =
        short(GameResult { outcome: Outcome::Draw, termination: Termination::PluginCrashed("x".into()) }).unwrap_err();
    assert!(e.contains("has no result"), "{e}");
    assert_eq!(
        short(GameResult { outcome: Outcome::Ongoing, termination: Termination::Unterminated("stop".into()) }),
        Ok(())
    );
}

#[test]
fn an_engine_that_pondered_has_its_hits_in_the_pgn_tags_and_each_ply_in_json_lines() {
    let mut r = record(&[0, 1, 0, 1, 0]);
    for (ply, hit) in r.plies.iter_mut().zip([None, Some(true), Some(true), Some(false), Some(false)]) {
        ply.ponder_hit = hit;
    }
    let pgn = super::pgn::write_game(&r, &event());
    assert!(pgn.contains("[WhitePonderHits \"1/2\"]") && pgn.contains("[BlackPonderHits \"1/2\"]"), "{pgn}");
    r.plies.iter_mut().filter(|p| p.player == Seat::SECOND).for_each(|p| p.ponder_hit = None);
    let pgn = super::pgn::write_game(&r, &event());
    assert!(!pgn.contains("BlackPonderHits"), "no tag for an engine that did not ponder: {pgn}");
    let line = format("jsonl").unwrap().write(&r, &event());
    let back: serde_json::Value = serde_json::from_str(&line).unwrap();
    let hits: Vec<&serde_json::Value> = back["plies"].as_array().unwrap().iter().map(|p| &p["ponder_hit"]).collect();
    assert_eq!(
        hits,
        [&serde_json::Value::Null, &serde_json::Value::Null, &true.into(), &serde_json::Value::Null, &false.into()]
    );
}

#[test]
fn a_record_survives_json() {
    let r = record(&[0, 1, 0, 0, 1]);
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(serde_json::from_str::<GameRecord>(&text).unwrap(), r, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["plies"][1],
        serde_json::json!({"player": 1, "id": 1, "text": "m1", "used_us": 1500, "clock_ms": 59999})
    );
    assert_eq!(v["time_controls"], serde_json::json!(["60+1", "60+1"]));
    let seen = GameRecord { viewer: Some(arbiter_api::Viewer::Player(1)), ..r };
    let text = serde_json::to_string(&seen).unwrap();
    assert!(text.contains(r#""viewer":{"player":1}"#), "{text}");
    assert_eq!(serde_json::from_str::<GameRecord>(&text).unwrap(), seen);
}
