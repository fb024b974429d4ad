//! The referee on kit variants run in process (the fixture plugin's race
//! to ten and its secret-digit game), with scripted players: every way a game
//! can end, and who is blamed.

use arbiter_api::host::VariantHandle;
use arbiter_api::{Outcome, Viewer};
use arbiter_fixture::{Fault, Sampling, Secret};
use serde_json::{json, Value};

use super::*;
use crate::testing::game_config;
use arbiter_core::seat::{Answer, Player, PlayerError, Reply, Seen, Turn};
use arbiter_testing::{options, race, secret, Scripted};

/// Referee settings: `tc` for both, no margin, draws claimed.
pub(crate) fn config(tc: &str) -> GameConfig {
    GameConfig::new(vec![TimeControl::parse(tc).unwrap(); 2], 0)
}

fn play(v: &VariantHandle, opts: Value, players: Vec<Scripted>, tc: &str) -> GameRecord {
    let mut boxed: Vec<Box<dyn Player>> = players.into_iter().map(|p| Box::new(p) as Box<dyn Player>).collect();
    play_game(v, &options(v, opts), StartFrom::Standard, &mut boxed, &config(tc)).unwrap()
}

fn result(r: &GameRecord) -> (Outcome, Termination) {
    (r.result.outcome, r.result.termination.clone())
}

#[test]
fn a_game_ends_by_the_rules_with_every_ply_recorded() {
    let v = race(Fault::None);
    // Both add 1 each turn: the tenth ply reaches ten, the second player's.
    let r = play(&v, json!({}), vec![Scripted::new(vec![]), Scripted::new(vec![])], "inf");
    assert_eq!(result(&r), (Outcome::Win(1), Termination::Rules("reached ten".into())));
    assert_eq!(r.plies.len(), 10);
    assert!(r.plies.iter().enumerate().all(|(i, p)| p.player == Seat::at(i % 2) && p.text == "+1"));
    assert_eq!((r.start_position.as_str(), r.final_position.as_str()), ("0 0", "10 10"));
    assert!(r.standard_start);
}

#[test]
fn moves_by_text_are_parsed_and_an_illegal_answer_loses() {
    let v = race(Fault::None);
    let first = Scripted::new(vec![Ok(Answer::Text("+2".into())), Ok(Answer::Text("+3".into()))]);
    let r = play(&v, json!({}), vec![first, Scripted::new(vec![])], "inf");
    assert_eq!(result(&r), (Outcome::Win(1), Termination::IllegalMove("+3".into())));
    assert_eq!(r.plies[0].text, "+2");
    let junk = Scripted::new(vec![Ok(Answer::Move(7))]);
    let r = play(&v, json!({}), vec![Scripted::new(vec![]), junk], "inf");
    assert_eq!(r.result.outcome, Outcome::Win(0));
    assert!(matches!(r.result.termination, Termination::IllegalMove(_)), "{:?}", r.result);
}

#[test]
fn resignation_draw_offers_and_player_failures_land_on_the_right_seat() {
    let v = race(Fault::None);
    let r = play(&v, json!({}), vec![Scripted::new(vec![]), Scripted::new(vec![Ok(Answer::Resign)])], "inf");
    assert_eq!(result(&r), (Outcome::Win(0), Termination::Resignation));
    // A declined offer: the offerer is asked again and plays on.
    let offer = || Scripted::new(vec![Ok(Answer::OfferDraw)]);
    let r = play(&v, json!({}), vec![offer(), Scripted::new(vec![])], "inf");
    assert_eq!(r.result.termination, Termination::Rules("reached ten".into()));
    let accepting = Scripted { accepts_draws: true, ..Scripted::new(vec![]) };
    let r = play(&v, json!({}), vec![offer(), accepting], "inf");
    assert_eq!(result(&r), (Outcome::Draw, Termination::DrawAgreed));
    assert!(r.plies.is_empty());
    for (error, termination) in [
        (PlayerError::Crashed("gone".into()), Termination::EngineCrashed("gone".into())),
        (PlayerError::Protocol("junk".into()), Termination::EngineProtocol("junk".into())),
        (PlayerError::Hung("silent".into()), Termination::EngineHung("silent".into())),
    ] {
        let r = play(&v, json!({}), vec![Scripted::new(vec![Err(error)]), Scripted::new(vec![])], "inf");
        assert_eq!(result(&r), (Outcome::Win(1), termination));
    }
}

#[test]
fn a_plugin_failure_inside_a_player_voids_the_game() {
    let v = race(Fault::None);
    let e = arbiter_api::Error::new(arbiter_api::ErrorKind::Panic, "plugin x panicked in apply: boom");
    let r = play(&v, json!({}), vec![Scripted::new(vec![Err(PlayerError::Plugin(e))]), Scripted::new(vec![])], "inf");
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(r.result.termination.is_plugin_fault(), "{:?}", r.result);
}

#[test]
fn a_flag_falls_on_the_slow_player() {
    let v = race(Fault::None);
    let slow = Scripted { sleep_ms: 150, ..Scripted::new(vec![]) };
    let r = play(&v, json!({}), vec![Scripted::new(vec![]), slow], "st=0.05");
    assert_eq!(r.result.outcome, Outcome::Win(0));
    // 150 ms used of 50: about 100 ms over, said in the termination.
    let over = match r.result.termination {
        Termination::TimeForfeit(Some(ms)) => ms,
        ref t => panic!("{t:?}"),
    };
    assert!((90..1000).contains(&over), "{over} ms over");
    assert_eq!(r.result.termination.to_string(), format!("time forfeit: {over} ms over"));
    assert_eq!(r.plies.len(), 1);
}

#[test]
fn a_ply_limit_is_an_adjudicated_draw() {
    let v = race(Fault::None);
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Scripted::new(vec![])), Box::new(Scripted::new(vec![]))];
    let cfg = GameConfig { max_plies: Some(4), ..config("inf") };
    let r = play_game(&v, &options(&v, json!({})), StartFrom::Standard, &mut players, &cfg).unwrap();
    assert_eq!(result(&r), (Outcome::Draw, Termination::Adjudication("ply limit".into())));
    assert_eq!(r.plies.len(), 4);
}

#[test]
fn plugin_faults_void_the_game_and_keep_the_plies_before_them() {
    let v = race(Fault::None);
    let r = play(
        &v,
        json!({"panic_in": "apply", "panic_at_ply": 2}),
        vec![Scripted::new(vec![]), Scripted::new(vec![])],
        "inf",
    );
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(
        matches!(&r.result.termination, Termination::PluginCrashed(d) if d.contains("panicked in apply")),
        "{:?}",
        r.result
    );
    assert_eq!(r.plies.len(), 2);
    let stuck = race(Fault::NoMoves);
    let r = play(&stuck, json!({}), vec![Scripted::new(vec![]), Scripted::new(vec![])], "inf");
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(matches!(r.result.termination, Termination::PluginContract(_)), "{:?}", r.result);
    assert_eq!(r.plies.len(), 3);
}

#[test]
fn a_game_from_a_position_is_not_a_standard_start() {
    let v = race(Fault::None);
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Scripted::new(vec![])), Box::new(Scripted::new(vec![]))];
    let r = play_game(&v, &options(&v, json!({})), StartFrom::Position("8 4"), &mut players, &config("inf")).unwrap();
    assert!(!r.standard_start);
    assert_eq!(result(&r), (Outcome::Win(1), Termination::Rules("reached ten".into())));
    assert_eq!(r.plies.len(), 2);
    let bad = play_game(&v, &options(&v, json!({})), StartFrom::Position("8"), &mut players, &config("inf"));
    assert!(bad.unwrap_err().message.contains("is not 'TOTAL PLY'"));
}

/// A player that records what it was told of each move, shared with the test.
struct Listener(std::sync::Arc<std::sync::Mutex<Vec<String>>>, Scripted);

impl Player for Listener {
    fn name(&self) -> String {
        "listener".into()
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        assert!(turn.state().is_none(), "a hidden-information turn carries no true state");
        self.1.choose(turn)
    }
    fn notify(&mut self, seen: &Seen<'_>) {
        assert!(seen.before.is_none(), "nor does a hidden-information move");
        self.0.lock().unwrap().push(seen.text.clone());
    }
}

#[test]
fn each_player_is_told_only_its_own_view_of_hidden_moves() {
    let v = VariantHandle::in_process(Secret { id: "secret", sampling: Sampling::Honest }, "fixture-plugin", "0.1.0")
        .unwrap();
    let heard: Vec<_> = (0..2).map(|_| std::sync::Arc::new(std::sync::Mutex::new(Vec::new()))).collect();
    let mut players: Vec<Box<dyn Player>> =
        heard.iter().map(|h| Box::new(Listener(h.clone(), Scripted::new(vec![]))) as Box<dyn Player>).collect();
    let start = StartFrom::Position("3 7 0");
    let r = play_game(&v, &options(&v, json!({})), start, &mut players, &config("inf")).unwrap();
    assert!(!r.plies.is_empty());
    let mut game = v.from_position("3 7 0", &options(&v, json!({}))).unwrap();
    for (i, ply) in r.plies.iter().enumerate() {
        for (p, h) in heard.iter().enumerate() {
            assert_eq!(h.lock().unwrap()[i], game.move_text(ply.mv, Viewer::Player(p as u32)).unwrap());
        }
        game.apply(ply.mv).unwrap();
    }
}

#[test]
fn mcts_finds_the_winning_line_and_a_plugin_panic_in_its_search_voids_the_game() {
    use crate::players::mcts::{MctsConfig, MctsPlayer};
    let v = race(Fault::None);
    // From a total of 6 the side to move wins by leaving 7, then 10.
    let mut players: Vec<Box<dyn Player>> =
        vec![Box::new(MctsPlayer::new(MctsConfig::default(), 1)), Box::new(Scripted::new(vec![]))];
    let r = play_game(&v, &options(&v, json!({})), StartFrom::Position("6 0"), &mut players, &config("inf")).unwrap();
    assert_eq!(r.plies[0].text, "+1", "{:?}", r.plies);
    assert_eq!(r.result.outcome, Outcome::Win(0));
    // Its playouts reach ply 2, where the plugin panics: the plugin's fault.
    let opts = options(&v, json!({"panic_in": "legal_moves", "panic_at_ply": 2}));
    let r = play_game(&v, &opts, StartFrom::Standard, &mut players, &config("inf")).unwrap();
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(r.result.termination.is_plugin_fault(), "{:?}", r.result);
}

#[test]
fn a_plugin_that_offers_adjudication_ends_the_game_when_asked_and_only_then() {
    let v = race(Fault::None);
    let scripted = || vec![Scripted::new(vec![]), Scripted::new(vec![])];
    let ask = GameConfig { adjudication: Adjudication { plugin: true, ..Adjudication::default() }, ..config("inf") };
    let mut players: Vec<Box<dyn Player>> = scripted().into_iter().map(|p| Box::new(p) as Box<dyn Player>).collect();
    let r = play_game(&v, &options(&v, json!({})), StartFrom::Standard, &mut players, &ask).unwrap();
    // Both add 1: at a total of 5 the first player is to move with 5 to
    // go, not a multiple of 3, so it wins by the race table.
    assert_eq!(r.plies.len(), 5);
    assert_eq!(
        result(&r),
        (Outcome::Win(1), Termination::Adjudication("race table: 5 to go (the plugin's adjudication)".into()))
    );
    // Not asked: the race is played out.
    let r = play(&v, json!({}), scripted(), "inf");
    assert_eq!(r.result.termination, Termination::Rules("reached ten".into()));
    // An answer of the wrong shape is the plugin's fault: no result.
    let mut players: Vec<Box<dyn Player>> = scripted().into_iter().map(|p| Box::new(p) as Box<dyn Player>).collect();
    let r =
        play_game(&v, &options(&v, json!({"adjudication": "bad"})), StartFrom::Standard, &mut players, &ask).unwrap();
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(
        matches!(&r.result.termination, Termination::PluginContract(d) if d.contains("adjudicate: no reason")),
        "{:?}",
        r.result
    );
    // So is a win for a seat past the players, however large its number.
    let mut players: Vec<Box<dyn Player>> = scripted().into_iter().map(|p| Box::new(p) as Box<dyn Player>).collect();
    let unseated = options(&v, json!({"adjudication": "unseated"}));
    let r = play_game(&v, &unseated, StartFrom::Standard, &mut players, &ask).unwrap();
    assert_eq!(r.result.outcome, Outcome::Ongoing);
    assert!(
        matches!(&r.result.termination, Termination::PluginContract(d) if d.contains("{\"win\": PLAYER}")),
        "{:?}",
        r.result
    );
    // A variant without the call is not asked twice, and plays out.
    let secret =
        VariantHandle::in_process(Secret { id: "secret", sampling: Sampling::Honest }, "fixture-plugin", "0.1.0")
            .unwrap();
    let mut players: Vec<Box<dyn Player>> = scripted().into_iter().map(|p| Box::new(p) as Box<dyn Player>).collect();
    let r = play_game(&secret, &options(&secret, json!({})), StartFrom::Standard, &mut players, &ask).unwrap();
    assert!(!matches!(r.result.termination, Termination::Adjudication(_)), "{:?}", r.result);
}

/// A scripted player that notes the CPU it is pinned to.
struct Pinned(Scripted, std::sync::Arc<std::sync::Mutex<Option<usize>>>);

impl Player for Pinned {
    fn name(&self) -> String {
        self.0.name()
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        self.0.choose(turn)
    }
    fn pin_to_cpu(&mut self, cpu: usize) -> Result<(), arbiter_core::process::AffinityError> {
        *self.1.lock().unwrap() = Some(cpu);
        Ok(())
    }
}

#[cfg(target_os = "linux")]
#[test]
fn with_seats_pinned_each_seat_s_engine_gets_a_cpu_of_its_own() {
    if arbiter_core::process::allowed_cpus().unwrap().len() < 2 {
        eprintln!("skipped: one CPU");
        return;
    }
    std::thread::spawn(|| {
        let cpus = arbiter_core::process::pin_thread_to_cpus(0, 2).unwrap();
        let v = race(Fault::None);
        for pin_seats in [true, false] {
            let pins = [Default::default(), Default::default()];
            let mut players: Vec<Box<dyn Player>> =
                pins.iter().map(|p| Box::new(Pinned(Scripted::new(vec![]), std::sync::Arc::clone(p))) as _).collect();
            let cfg = GameConfig { pin_seats, ..config("inf") };
            play_game(&v, &options(&v, json!({})), StartFrom::Standard, &mut players, &cfg).unwrap();
            let got: Vec<Option<usize>> = pins.iter().map(|p| *p.lock().unwrap()).collect();
            let want = if pin_seats { vec![Some(cpus[0]), Some(cpus[1])] } else { vec![None, None] };
            assert_eq!(got, want);
        }
    })
    .join()
    .unwrap();
}

#[test]
fn a_live_frame_holds_each_player_s_view_and_the_spectator_s_and_never_the_referee_s() {
    let variant = secret();
    let mut frames: Vec<LiveFrame> = Vec::new();
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Scripted::new(vec![])), Box::new(Scripted::new(vec![]))];
    let options = options(&variant, serde_json::json!({"secrets": "3 4"}));
    let start = crate::referee::StartFrom::Standard;
    let record = crate::referee::play_game_watched(&variant, &options, start, &mut players, &game_config(), &mut |f| {
        frames.push(f)
    })
    .unwrap();
    assert!(frames.len() > record.plies.len(), "a frame before the first move and after each");
    for frame in &frames {
        assert!(frame.seen_by(Viewer::Referee).is_none(), "the referee's view never leaves in a frame");
        for viewer in [Viewer::Player(0), Viewer::Player(1), Viewer::Spectator] {
            let seen = frame.seen_by(viewer).unwrap();
            assert_eq!(seen.observation.viewer, arbiter_api::schema::ObservationView::viewer_name(viewer));
            assert_eq!((seen.ply, seen.to_move, &seen.clocks), (frame.ply, frame.to_move, &frame.clocks));
        }
    }
    let last = frames.last().unwrap().seen_by(Viewer::Spectator).unwrap();
    assert_eq!(last.result.unwrap().result, record.result.pgn());
    assert!(frames[0].seen_by(Viewer::Spectator).unwrap().result.is_none());
}

/// A scripted player on a virtual clock that takes real time to answer and
/// counts none of it.
struct Uncounted(Scripted);

impl Player for Uncounted {
    fn name(&self) -> String {
        self.0.name()
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        std::thread::sleep(std::time::Duration::from_millis(5));
        self.0.choose(turn)
    }
    fn on_virtual_clock(&self) -> bool {
        true
    }
}

#[test]
fn a_player_on_a_virtual_clock_is_never_charged_the_real_time() {
    let v = race(Fault::None);
    let mut players: Vec<Box<dyn Player>> =
        vec![Box::new(Uncounted(Scripted::new(vec![]))), Box::new(Uncounted(Scripted::new(vec![])))];
    let r = play_game(&v, &options(&v, json!({})), StartFrom::Standard, &mut players, &config("1+0")).unwrap();
    assert!(!r.plies.is_empty());
    assert!(r.plies.iter().all(|p| p.used_us == 0), "{:?}", r.plies);
}
