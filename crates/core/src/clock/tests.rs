use super::*;

fn tc(s: &str) -> TimeControl {
    TimeControl::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn parses_every_form() {
    assert_eq!(tc("inf").limit, Limit::Infinite);
    assert_eq!(tc("st=1.5").limit, Limit::PerMove(1500));
    assert_eq!(tc("hg=60").limit, Limit::Hourglass(60_000));
    assert_eq!(
        tc("40/60+0.6").limit,
        Limit::Periods(vec![Period { moves: Some(40), base_ms: 60_000, bonus: Bonus::Increment(600) }])
    );
    assert_eq!(
        tc("60+0.6").limit,
        Limit::Periods(vec![Period { moves: None, base_ms: 60_000, bonus: Bonus::Increment(600) }])
    );
    assert_eq!(tc("300").limit, Limit::Periods(vec![Period { moves: None, base_ms: 300_000, bonus: Bonus::None }]));
    assert_eq!(
        tc("40/5400+30:1800+30").limit,
        Limit::Periods(vec![
            Period { moves: Some(40), base_ms: 5_400_000, bonus: Bonus::Increment(30_000) },
            Period { moves: None, base_ms: 1_800_000, bonus: Bonus::Increment(30_000) },
        ])
    );
    assert_eq!(
        tc("60+d2").limit,
        Limit::Periods(vec![Period { moves: None, base_ms: 60_000, bonus: Bonus::Delay(2000) }])
    );
    assert_eq!(
        tc("60+b2").limit,
        Limit::Periods(vec![Period { moves: None, base_ms: 60_000, bonus: Bonus::Bronstein(2000) }])
    );
    assert_eq!(
        tc("600+byo30").limit,
        Limit::Periods(vec![Period { moves: None, base_ms: 600_000, bonus: Bonus::Byoyomi(30_000) }])
    );
    assert_eq!(tc("600+byo30").pgn_tag(), "600+byo30");
    let m = tc("10+0.1,nodes=5000,depth=12,cap=4500");
    assert_eq!((m.nodes, m.depth, m.cap_ms), (Some(5000), Some(12), Some(4_500_000)));
    assert_eq!(
        tc("0+1").limit,
        Limit::Periods(vec![Period { moves: None, base_ms: 0, bonus: Bonus::Increment(1000) }])
    );
}

#[test]
fn malformed_strings_get_clear_errors() {
    let e = |s: &str| TimeControl::parse(s).unwrap_err().to_string();
    assert_eq!(e("40/"), "time control '40/': missing the base time before '+'");
    assert_eq!(e("+5"), "time control '+5': missing the base time before '+'");
    assert_eq!(e("abc"), "time control 'abc': 'abc' is not a number of seconds (0 to 10000000)");
    assert_eq!(e(""), "time control '': empty");
    assert_eq!(e("x/60"), "time control 'x/60': 'x' is not a move count");
    assert_eq!(
        e("60+y"),
        "time control '60+y': 'y' is not an increment, delay (d2, b2) or byoyomi (byo30) in seconds (0 to 10000000)"
    );
    assert_eq!(e("0+byo0"), "time control '0+byo0': a period needs some time");
    assert_eq!(e("st=0"), "time control 'st=0': st= needs a positive number of seconds");
    assert_eq!(e("60:40/60"), "time control '60:40/60': only the last period may cover the rest of the game");
    assert_eq!(e("60,foo=1"), "time control '60,foo=1': unknown modifier 'foo' (known: nodes, depth, cap, hang)");
    assert_eq!(e("60,nodes"), "time control '60,nodes': modifiers have the form key=value");
    assert_eq!(e("0"), "time control '0': a period needs some time");
    assert_eq!(e("-5"), "time control '-5': '-5' is not a number of seconds (0 to 10000000)");
}

#[test]
fn fischer_increment_is_added_after_each_move() {
    let mut c = Clock::new(&tc("10+1"));
    c.charge(3000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(8000));
    assert_eq!(c.turn_time().increment_ms, 1000);
    assert_eq!(c.charge(8001, 0), Err(Flagged));
}

#[test]
fn margin_tolerates_small_overruns() {
    let mut c = Clock::new(&tc("1"));
    assert!(c.charge(1040, 50).is_ok());
    assert_eq!(c.remaining_ms(), Some(0));
}

#[test]
fn repeating_periods_refill_after_the_move_count() {
    let mut c = Clock::new(&tc("2/10"));
    assert_eq!(c.turn_time().moves_to_go, Some(2));
    c.charge(4000, 0).unwrap();
    assert_eq!(c.turn_time().moves_to_go, Some(1));
    c.charge(4000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(12_000));
    assert_eq!(c.turn_time().moves_to_go, Some(2));
}

#[test]
fn multi_period_moves_to_the_last_period_and_stays() {
    let mut c = Clock::new(&tc("1/10+1:5+2"));
    c.charge(2000, 0).unwrap(); // 10 - 2 + 1 = 9, then +5 for period 2
    assert_eq!(c.remaining_ms(), Some(14_000));
    assert_eq!(c.turn_time().moves_to_go, None);
    c.charge(1000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(15_000));
}

#[test]
fn simple_delay_does_not_charge_the_first_seconds() {
    let mut c = Clock::new(&tc("10+d2"));
    c.charge(1500, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(10_000));
    c.charge(3000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(9_000));
    assert_eq!(c.budget_ms(), Some(11_000));
}

#[test]
fn bronstein_gives_back_used_time_up_to_the_delay() {
    let mut c = Clock::new(&tc("10+b2"));
    c.charge(1500, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(10_000));
    c.charge(3000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(9_000));
}

#[test]
fn hourglass_passes_used_time_to_the_opponent() {
    let t = tc("hg=10");
    let (mut a, mut b) = (Clock::new(&t), Clock::new(&t));
    let gained = a.charge(3000, 0).unwrap();
    b.credit(gained);
    assert_eq!((a.remaining_ms(), b.remaining_ms()), (Some(7000), Some(13_000)));
}

#[test]
fn fixed_time_per_move_flags_only_that_move() {
    let mut c = Clock::new(&tc("st=1"));
    assert_eq!(c.turn_time().movetime_ms, Some(1000));
    assert!(c.charge(999, 0).is_ok());
    assert_eq!(c.charge(1200, 100), Err(Flagged));
}

#[test]
fn infinite_never_flags() {
    let mut c = Clock::new(&tc("inf"));
    assert!(c.charge(u64::MAX / 2, 0).is_ok());
    assert_eq!(c.budget_ms(), None);
}

#[test]
fn pgn_tag_follows_the_pgn_standard() {
    assert_eq!(tc("40/5400+30:1800+30").pgn_tag(), "40/5400+30:1800+30");
    assert_eq!(tc("60+0.6").pgn_tag(), "60+0.6");
    assert_eq!(tc("st=2").pgn_tag(), "*2");
    assert_eq!(tc("inf").pgn_tag(), "-");
}

#[test]
fn values_beyond_the_maximum_are_refused_not_wrapped() {
    for text in ["1.8e16", "1e300+0", "60+1e300", "st=1e9", "hg=1e12", "60,cap=1e20", "inf,hang=1e30"] {
        assert!(TimeControl::parse(text).is_err(), "{text} must be refused");
    }
    assert!(TimeControl::parse("10000000+0").is_ok(), "the maximum itself is accepted");
}

#[test]
fn a_period_with_no_time_at_all_is_refused() {
    for text in ["0+0", "0", "40/0+0", "0+d0"] {
        let e = TimeControl::parse(text).unwrap_err().to_string();
        assert!(e.contains("needs some time"), "{text}: {e}");
    }
    assert!(TimeControl::parse("0+0.1").is_ok(), "an increment alone is a time control");
}

#[test]
fn hang_sets_the_limit_for_engines_without_a_clock() {
    assert_eq!(tc("inf,hang=2.5").hang_ms, Some(2500));
    assert_eq!(tc("inf").hang_ms, None);
    assert!(TimeControl::parse("inf,hang=0").is_err());
}

#[test]
fn byoyomi_is_spent_past_the_main_time_and_never_kept() {
    let mut c = Clock::new(&tc("10+byo5"));
    let t = c.turn_time();
    assert_eq!((t.remaining_ms, t.increment_ms, t.byoyomi_ms, t.earned_ms()), (Some(10_000), 0, 5000, 5000));
    assert_eq!(c.budget_ms(), Some(15_000));
    c.charge(4000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(6000));
    // 6 s of main time and 4 s of the byoyomi: the main time is gone.
    c.charge(10_000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(0));
    assert_eq!(c.budget_ms(), Some(5000));
    // Each move now has the whole byoyomi, and no more.
    c.charge(4999, 0).unwrap();
    c.charge(5000, 0).unwrap();
    assert_eq!(c.remaining_ms(), Some(0));
    assert_eq!(c.charge(5001, 0), Err(Flagged));
    let mut c = Clock::new(&tc("0+byo1"));
    assert!(c.charge(1040, 50).is_ok());
}
