//! The web handlers, tested through the router: requests sent straight to
//! it (no socket), a store on a temporary SQLite file, and the fixture's
//! variants in process (a race and a game of hidden secrets).

use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_api::host::VariantHandle;
use arbiter_fixture::Fault;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use serde_json::{json, Value};
use tower::ServiceExt;

use super::{live, play, router, same_origin, trusted_host, App, Reveal, ServeConfig};
use arbiter_core::plugin::Registry;
use arbiter_fleet::coordinator::Coordinator;
use arbiter_play::record::{EventInfo, TournamentSlot};
use arbiter_store::Store;
use arbiter_testing::{definition, played, race, secret, temp_folder};

/// A server's state over a new store, with `reveal` and `max_games`.
fn app(name: &str, reveal: Reveal, max_games: usize) -> (Arc<App>, Arc<Store>) {
    let db = temp_folder(&format!("web-{name}")).join("games.db");
    let store = Arc::new(Store::open(&db).unwrap());
    let config = ServeConfig {
        db: db.clone(),
        bind: "127.0.0.1:0".parse().unwrap(),
        reveal,
        allow_engines: false,
        allow_hosts: vec![],
        max_games,
        tls: None,
        worker_lease: std::time::Duration::from_secs(30),
        double_check: 0.0,
        reexecute: 1.0,
        connections: Default::default(),
    };
    let registry = Arc::new(Registry::of([race(Fault::None), secret()]));
    let app = App {
        registry: registry.clone(),
        store: store.clone(),
        config,
        changes: live::StoreChanges::watch(Store::open(&db).unwrap()).unwrap(),
        sessions: play::Sessions::default(),
        coordinator: Coordinator::new(registry, store.clone(), std::time::Duration::from_secs(30)),
        uploads: Default::default(),
    };
    (Arc::new(app), store)
}

/// A request as a browser on this machine sends it.
fn request(method: &str, path: &str, body: Option<Value>) -> Request<Body> {
    let builder = Request::builder().method(method).uri(path).header(header::HOST, "127.0.0.1:8080");
    match body {
        Some(b) => builder.header(header::CONTENT_TYPE, "application/json").body(Body::from(b.to_string())),
        None => builder.body(Body::empty()),
    }
    .unwrap()
}

/// The answer to `req`: its status and body (JSON, or a string of the text).
async fn send(app: &Arc<App>, req: Request<Body>) -> (StatusCode, Value) {
    let response = router(app.clone()).oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

async fn get(app: &Arc<App>, path: &str) -> (StatusCode, Value) {
    let (status, body) = send(app, request("GET", path, None)).await;
    answers_as_typed("GET", path, status, &body);
    (status, body)
}

async fn post(app: &Arc<App>, path: &str, body: Value) -> (StatusCode, Value) {
    let (status, body) = send(app, request("POST", path, Some(body))).await;
    answers_as_typed("POST", path, status, &body);
    (status, body)
}

/// Checks that an answer of the JSON API reads back as the type the
/// contract (`answers`) gives its route: an error as `ErrorAnswer`.
fn answers_as_typed(method: &str, path: &str, status: StatusCode, body: &Value) {
    use super::answers::*;
    fn reads<T: serde::de::DeserializeOwned>(body: &Value) -> Result<(), serde_json::Error> {
        serde_json::from_value::<T>(body.clone()).map(drop)
    }
    let route = path.split('?').next().unwrap_or_default();
    let parts: Vec<&str> = route.trim_start_matches("/api/").split('/').collect();
    let read = if status.is_client_error() || status.is_server_error() {
        if !body.is_object() {
            return; // refused by the router itself (a path or body it cannot read)
        }
        reads::<ErrorAnswer>(body)
    } else {
        match (method, parts.as_slice()) {
            ("GET", ["variants"]) => reads::<Vec<VariantCard>>(body),
            ("GET", ["tournaments"]) => reads::<Vec<TournamentItem>>(body),
            ("GET", ["tournaments", _]) => reads::<TournamentPage>(body),
            ("GET", ["tournaments", _, "live"]) => reads::<LiveGames>(body),
            ("GET", ["games"]) => reads::<GamePage>(body),
            ("GET", ["games", _]) => reads::<Replay>(body),
            ("GET", ["play"]) => reads::<Vec<PlayItem>>(body),
            ("GET", ["play", _]) => reads::<SessionView>(body),
            ("POST", ["play"]) => reads::<Started>(body),
            ("POST", ["play", _, "act"]) => reads::<Done>(body),
            ("GET", ["ratings"]) => reads::<Ratings>(body),
            _ => Ok(()), // records (text), workers' routes
        }
    };
    if let Err(e) = read {
        panic!("{method} {path} answered {status} outside its type: {e}: {body}");
    }
}

/// Plays a whole game of `variant` (each seat its first legal move) and stores it.
fn store_played_game(store: &Store, variant: &VariantHandle, given: Value, event: &EventInfo) -> i64 {
    store.add_game(&played(variant, given), event).unwrap()
}

/// Polls the browser game `id` as `token`'s seat until `done` holds.
async fn wait_for_state(app: &Arc<App>, id: u64, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (status, state) = get(app, &format!("/api/play/{id}?token={token}")).await;
        assert_eq!(status, StatusCode::OK, "{state}");
        if done(&state) {
            return state;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "waited too long: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_variants_are_listed_with_their_options() {
    let (app, _) = app("variants", Reveal::Finished, 4);
    let (status, list) = get(&app, "/api/variants").await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = list.as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["race", "secret"]);
    let secret = &list[1];
    assert_eq!(secret["options"][0]["name"], "secrets", "{secret}");
}

#[tokio::test(flavor = "multi_thread")]
async fn games_are_listed_filtered_and_paged_and_a_nul_in_a_filter_is_refused() {
    let (app, store) = app("games", Reveal::Finished, 4);
    for _ in 0..3 {
        store_played_game(&store, &race(Fault::None), json!({}), &EventInfo::default());
    }
    store_played_game(&store, &secret(), json!({"secrets": "3 4"}), &EventInfo::default());
    let (status, page) = get(&app, "/api/games?limit=2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((page["total"].as_u64(), page["games"].as_array().unwrap().len()), (Some(4), 2));
    assert_eq!(page["games"][0]["variant"], "secret", "newest first");
    let (_, races) = get(&app, "/api/games?variant=race&offset=2").await;
    assert_eq!((races["total"].as_u64(), races["games"].as_array().unwrap().len()), (Some(3), 1));
    let (_, blank) = get(&app, "/api/games?player=%20").await;
    assert_eq!(blank["total"], 4, "a blank filter matches everything");
    let (status, refused) = get(&app, "/api/games?player=a%00b").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["error"], "filter 'player' holds a NUL character");
    let (status, _) = get(&app, "/api/games?limit=many").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stored_game_replays_frame_by_frame_and_an_unknown_one_is_not_found() {
    let (app, store) = app("replay", Reveal::Finished, 4);
    let id = store_played_game(&store, &race(Fault::None), json!({}), &EventInfo::default());
    let stored = store.game(id).unwrap().unwrap();
    let (status, game) = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{game}");
    let frames = game["frames"].as_array().unwrap();
    assert_eq!(frames.len(), stored.record.plies.len() + 1, "the start, then one frame a ply");
    assert_eq!(frames[1]["text"], stored.record.plies[0].text);
    assert_eq!((game["hidden"].as_bool(), game["views"].clone()), (Some(false), json!(["spectator"])));
    let (status, pgn) = get(&app, &format!("/api/games/{id}/record")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(pgn.as_str().unwrap().contains("[Result \""), "{pgn}");
    // Every format `--out` writes, by name.
    let (status, line) = get(&app, &format!("/api/games/{id}/record?format=jsonl")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(line["plies"].as_array().map(Vec::len), Some(stored.record.plies.len()), "{line}");
    let (status, epd) = get(&app, &format!("/api/games/{id}/record?format=epd")).await;
    assert_eq!((status, epd.as_str().map(str::trim)), (StatusCode::OK, Some(stored.record.final_position.as_str())));
    let (status, refused) = get(&app, &format!("/api/games/{id}/record?format=sgf")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(refused["error"].as_str().is_some_and(|e| e.contains("sgf") && e.contains("jsonl")), "{refused}");
    let (status, missing) = get(&app, &format!("/api/games/{}", id + 1)).await;
    assert_eq!(
        (status, missing["error"].as_str()),
        (StatusCode::NOT_FOUND, Some(format!("no game {}", id + 1).as_str()))
    );
    let (status, _) = get(&app, "/api/games/seven").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hidden_game_shows_more_than_the_spectator_s_view_only_where_the_server_reveals() {
    for (reveal, shown) in [(Reveal::Never, false), (Reveal::Finished, true)] {
        let (app, store) = app(&format!("reveal-{shown}"), reveal, 4);
        let id = store_played_game(&store, &secret(), json!({"secrets": "3 4"}), &EventInfo::default());
        let (status, spectator) = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(spectator["viewer"], "spectator");
        assert_eq!(spectator["can_reveal"], shown);
        for asked in [format!("/api/games/{id}?view=referee"), format!("/api/games/{id}?view=player:1")] {
            let (status, answer) = get(&app, &asked).await;
            let expected = if shown { StatusCode::OK } else { StatusCode::FORBIDDEN };
            assert_eq!(status, expected, "{asked}: {answer}");
        }
        let (status, _) = get(&app, &format!("/api/games/{id}/record")).await;
        assert_eq!(status, if shown { StatusCode::OK } else { StatusCode::FORBIDDEN });
        let (status, bad) = get(&app, &format!("/api/games/{id}?view=player:2")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(bad["error"], "view 'player:2' must be spectator, referee or player:N with N below 2");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tournament_shows_its_standings_and_its_games_in_progress() {
    let (app, store) = app("tournament", Reveal::Finished, 4);
    let definition = definition("name = \"t\"\nrounds = 1", &[("a", "random"), ("b", "random")], &["race"]);
    let t = store.add_tournament("t", &serde_json::to_string(&definition).unwrap()).unwrap();
    let slot = TournamentSlot { id: t, index: 0, pair: Some(0), seats: vec![0, 1] };
    store_played_game(
        &store,
        &race(Fault::None),
        json!({}),
        &EventInfo { event: "t".into(), round: 1, tournament: Some(slot) },
    );
    let (status, list) = get(&app, "/api/tournaments").await;
    assert_eq!((status, list), (StatusCode::OK, json!([{"id": t, "name": "t", "finished": false, "games": 1}])));
    let (status, standings) = get(&app, &format!("/api/tournaments/{t}")).await;
    assert_eq!(status, StatusCode::OK, "{standings}");
    let text = standings.to_string();
    assert!(text.contains("\"name\":\"a\"") && text.contains("\"name\":\"b\""), "{text}");
    // A result one remote worker uploaded and none confirmed is said, apart
    // from the standings.
    assert_eq!(standings["queue"]["unconfirmed"], 0);
    let unconfirmed = arbiter_store::Refusal {
        kind: arbiter_store::RefusalKind::Unconfirmed,
        worker: "w1".into(),
        tournament: t,
        index: 1,
        reason: "a resignation".into(),
        at_ms: 1,
    };
    store.hold_upload(&unconfirmed, &store.game(1).unwrap().unwrap().record).unwrap();
    let (_, standings) = get(&app, &format!("/api/tournaments/{t}")).await;
    assert_eq!(standings["queue"]["unconfirmed"], 1, "{standings}");
    let frame = arbiter_core::model::SeenFrame {
        ply: 2,
        to_move: arbiter_core::model::Seat::FIRST,
        observation: Default::default(),
        last_move: Some("+1".into()),
        clocks: vec![None, None],
        result: None,
    };
    store.set_live(t, 1, "race", &["b".into(), "a".into()], &frame).unwrap();
    let (status, live) = get(&app, &format!("/api/tournaments/{t}/live")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(live["played"], 1);
    assert_eq!(live["games"][0]["index"], 1);
    assert_eq!(live["games"][0]["frame"]["last_move"], "+1");
    let (status, missing) = get(&app, &format!("/api/tournaments/{}", t + 1)).await;
    assert_eq!((status, missing["error"].clone()), (StatusCode::NOT_FOUND, json!(format!("no tournament {}", t + 1))));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tune_shows_each_parameter_s_path_pair_by_pair() {
    let (app, store) = app("tune", Reveal::Finished, 4);
    let head =
        "name = \"spsa\"\nrounds = 10\nvariants = [\"race\"]\n[tune]\nparams = [{ name = \"c\", type = \"float\", \
                start = 1.0, min = 0.0, max = 4.0, c_end = 0.2, r_end = 0.05 }]";
    let definition = definition(head, &[("m (+)", "mcts"), ("m (-)", "mcts")], &["race"]);
    let t = store.add_tournament("spsa", &serde_json::to_string(&definition).unwrap()).unwrap();
    let (_, before) = get(&app, &format!("/api/tournaments/{t}")).await;
    assert_eq!(before["tune"]["points"], json!([]));
    assert_eq!(before["tune"]["theta"], json!([1.0]));
    for (index, seats) in [(0, vec![0, 1]), (1, vec![1, 0])] {
        let slot = TournamentSlot { id: t, index, pair: Some(0), seats };
        store_played_game(
            &store,
            &race(Fault::None),
            json!({}),
            &EventInfo { event: "spsa".into(), round: 1, tournament: Some(slot) },
        );
    }
    let (status, after) = get(&app, &format!("/api/tournaments/{t}")).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    let tune = &after["tune"];
    assert_eq!((tune["iterations"].clone(), tune["params"][0]["name"].clone()), (json!(10), json!("c")));
    assert_eq!(tune["points"].as_array().map(Vec::len), Some(1), "{tune}");
    assert_eq!(tune["points"][0]["k"], 1);
    assert_eq!(tune["points"][0]["theta"], tune["theta"]);
    let (_, plain) = get(&app, "/api/tournaments/999").await;
    assert!(plain.get("tune").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_plays_a_whole_game_in_the_browser_and_it_is_stored() {
    let (app, store) = app("play", Reveal::Finished, 4);
    let (status, started) =
        post(&app, "/api/play", json!({"variant": "race", "opponent": "random", "seat": "0"})).await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let (id, token) = (started["id"].as_u64().unwrap(), started["token"].as_str().unwrap().to_string());
    assert_eq!((started["seat"].as_u64(), started["invite"].clone()), (Some(0), Value::Null));
    let path = format!("/api/play/{id}/act");
    let act = |action: Value| post(&app, &path, action);
    let state = wait_for_state(&app, id, &token, |s| s["moves"].is_array()).await;
    assert_eq!(state["you"], 0);
    let (status, wrong) = act(json!({"token": token, "action": "move", "move": "99"})).await;
    assert_eq!(
        (status, wrong["error"].clone()),
        (StatusCode::BAD_REQUEST, json!("move '99' is not one of your legal moves"))
    );
    let (status, _) = act(json!({"token": "not-a-seat", "action": "resign"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, unknown) = act(json!({"token": token, "action": "castle"})).await;
    assert_eq!((status, unknown["error"].clone()), (StatusCode::BAD_REQUEST, json!("unknown action 'castle'")));
    // Moves until the race ends.
    let finished = loop {
        let state = wait_for_state(&app, id, &token, |s| s["moves"].is_array() || s["stored_as"].is_number()).await;
        if state["stored_as"].is_number() {
            break state;
        }
        let first = state["moves"][0]["id"].as_str().unwrap().to_string();
        let (status, answer) = act(json!({"token": token, "action": "move", "move": first})).await;
        assert!(status == StatusCode::OK || answer["error"] == "it is not your turn", "{answer}");
    };
    let stored = store.game(finished["stored_as"].as_i64().unwrap()).unwrap().unwrap();
    assert_eq!(stored.summary.event, "arbiter serve");
    assert!(stored.summary.result != "*", "{:?}", stored.summary);
    let (_, spectator) = get(&app, &format!("/api/play/{id}")).await;
    assert_eq!((spectator["you"].clone(), spectator["moves"].clone()), (Value::Null, Value::Null));
    let (_, listed) = get(&app, "/api/play").await;
    assert_eq!(listed[0]["id"], id);
    let (status, _) = get(&app, &format!("/api/play/{}", id + 1)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_game_sees_only_its_own_secret() {
    let (app, _) = app("secret-play", Reveal::Finished, 4);
    let (status, started) = post(
        &app,
        "/api/play",
        json!({"variant": "secret", "opponent": "human", "seat": "0", "options": {"secrets": "3 4"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let id = started["id"].as_u64().unwrap();
    let (mine, theirs) = (started["token"].as_str().unwrap(), started["invite"].as_str().unwrap());
    let first = wait_for_state(&app, id, mine, |s| s["moves"].is_array()).await;
    let second = wait_for_state(&app, id, theirs, |s| s["observation"].is_object()).await;
    assert_eq!((first["you"].as_u64(), second["you"].as_u64()), (Some(0), Some(1)));
    assert!(second["moves"].is_null(), "not its turn: {second}");
    for (state, viewer) in [(&first, "0"), (&second, "1")] {
        assert_eq!(state["observation"]["viewer"], viewer, "{state}");
    }
    let (_, spectator) = get(&app, &format!("/api/play/{id}")).await;
    assert_eq!(spectator["observation"]["viewer"], "spectator", "{spectator}");
    let (status, _) = post(&app, &format!("/api/play/{id}/act"), json!({"token": mine, "action": "resign"})).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_start_requests_are_refused_each_with_its_reason() {
    let (app, _) = app("bad-start", Reveal::Finished, 4);
    let cases = [
        (json!({"variant": "nope", "opponent": "random"}), StatusCode::BAD_REQUEST, "unknown variant 'nope'"),
        (json!({"variant": "race", "opponent": "uci:stockfish"}), StatusCode::FORBIDDEN, "--allow-engines"),
        (json!({"variant": "race", "opponent": "random", "seat": "5"}), StatusCode::BAD_REQUEST, "seat '5'"),
        (json!({"variant": "race", "opponent": "random", "tc": "fast"}), StatusCode::BAD_REQUEST, "fast"),
        (json!({"variant": "race", "opponent": "random", "position": "x y z"}), StatusCode::BAD_REQUEST, ""),
        (json!({"variant": "race", "opponent": "random", "name": "a\u{7}b"}), StatusCode::BAD_REQUEST, "name"),
        (json!({"variant": "race", "opponent": "sorcerer"}), StatusCode::BAD_REQUEST, "sorcerer"),
    ];
    for (body, status, says) in cases {
        let (got, answer) = post(&app, "/api/play", body.clone()).await;
        assert_eq!(got, status, "{body}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains(says) && !error.contains('\n'), "{body}: {answer}");
    }
    let (status, _) = send(&app, request("POST", "/api/play", None)).await;
    assert!(status.is_client_error(), "an empty body: {status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn games_past_the_server_s_limit_are_refused_until_one_ends() {
    let (app, _) = app("cap", Reveal::Finished, 1);
    let human = json!({"variant": "race", "opponent": "human", "seat": "0"});
    let (status, first) = post(&app, "/api/play", human.clone()).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = post(&app, "/api/play", human.clone()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused["error"], "1 games are in progress, the most this server plays at once: try again later");
    let (id, token) = (first["id"].as_u64().unwrap(), first["token"].as_str().unwrap());
    wait_for_state(&app, id, token, |s| s["moves"].is_array()).await;
    post(&app, &format!("/api/play/{id}/act"), json!({"token": token, "action": "resign"})).await;
    wait_for_state(&app, id, token, |s| s["stored_as"].is_number()).await;
    let start = Instant::now();
    while post(&app, "/api/play", human.clone()).await.0 != StatusCode::OK {
        assert!(start.elapsed() < Duration::from_secs(10), "the slot was not given back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_naming_another_host_or_sent_by_another_origin_are_refused() {
    let (app, _) = app("hosts", Reveal::Finished, 4);
    let rebound = Request::builder().uri("/api/variants").header(header::HOST, "evil.example").body(Body::empty());
    let (status, answer) = send(&app, rebound.unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(answer["error"].as_str().unwrap().starts_with("host 'evil.example' refused"), "{answer}");
    let mut cross = request("POST", "/api/play", Some(json!({"variant": "race", "opponent": "random"})));
    cross.headers_mut().insert(header::ORIGIN, "http://evil.example".parse().unwrap());
    let (status, answer) = send(&app, cross).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    let mut own = request("POST", "/api/play", Some(json!({"variant": "race", "opponent": "random"})));
    own.headers_mut().insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
    assert_eq!(send(&app, own).await.0, StatusCode::OK);
}

#[test]
fn only_the_server_s_own_origin_may_change_state() {
    let host = "127.0.0.1:8080";
    assert!(same_origin("http://127.0.0.1:8080", "http", host));
    // Another scheme, address, or port of the same address is another origin.
    assert!(!same_origin("https://127.0.0.1:8080", "http", host));
    assert!(!same_origin("http://203.0.113.5", "http", host));
    assert!(!same_origin("http://203.0.113.5:8080", "http", host));
    assert!(!same_origin("http://127.0.0.1:9090", "http", host));
    assert!(!same_origin("http://127.0.0.1", "http", host));
    // localhost names only itself, at its own port.
    assert!(same_origin("http://localhost:8080", "http", "localhost:8080"));
    assert!(same_origin("http://LOCALHOST:8080", "http", "localhost:8080"));
    assert!(!same_origin("http://localhost:3000", "http", "localhost:8080"));
    assert!(!same_origin("http://127.0.0.1:8080", "http", "localhost:8080"));
    // The default port, written or not.
    assert!(same_origin("http://arbiter.lan", "http", "arbiter.lan:80"));
    assert!(same_origin("http://arbiter.lan:80", "http", "arbiter.lan"));
    assert!(same_origin("https://arbiter.lan", "https", "arbiter.lan"));
    assert!(!same_origin("http://arbiter.lan", "https", "arbiter.lan"));
    // IPv6 literals keep their brackets.
    assert!(same_origin("http://[::1]:8080", "http", "[::1]:8080"));
    assert!(!same_origin("http://[::1]:9", "http", "[::1]:8080"));
    // Opaque or malformed origins are never ours.
    for o in ["null", "", "127.0.0.1:8080", "http://", "http://127.0.0.1:8080/", "http://u@127.0.0.1:8080", "?"] {
        assert!(!same_origin(o, "http", host), "{o}");
    }
    assert!(!same_origin("http://127.0.0.1:8080", "gopher", host));
}

#[test]
fn only_addresses_localhost_and_allowed_names_are_trusted() {
    let allowed = vec!["arbiter.lan".to_string()];
    for host in ["127.0.0.1:8080", "127.0.0.1", "[::1]:8080", "localhost:8080", "LOCALHOST", "10.0.0.5:80"] {
        assert!(trusted_host(host, &allowed), "{host}");
    }
    assert!(trusted_host("arbiter.lan:8080", &allowed));
    for host in ["", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "arbiter.lan.evil"] {
        assert!(!trusted_host(host, &allowed), "{host}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rating_list_rates_stored_tournament_games_and_refuses_a_malformed_anchor() {
    let (app, store) = app("ratings", Reveal::Never, 4);
    let (status, empty) = get(&app, "/api/ratings").await;
    assert_eq!((status, empty["variants"].clone()), (StatusCode::OK, json!([])));
    let definition = definition("name = \"t\"", &[("a", "random"), ("b", "random")], &["race"]);
    let t = store.add_tournament("t", &serde_json::to_string(&definition).unwrap()).unwrap();
    for index in 0..4 {
        // Each seat plays its first legal move: the same game every time.
        let slot = TournamentSlot { id: t, index, pair: Some(index - index % 2), seats: vec![0, 1] };
        let event = EventInfo { event: "t".into(), round: 1, tournament: Some(slot) };
        store_played_game(&store, &race(Fault::None), json!({}), &event);
    }
    let (status, list) = get(&app, "/api/ratings?anchor=b%3D1500&bootstrap=999999").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["resamples"], 1000, "the bootstrap is capped");
    let race = &list["variants"][0];
    assert_eq!(
        (race["variant"].clone(), race["games"].clone(), race["encounters"].clone()),
        (json!("race"), json!(4), json!(2))
    );
    let rows = race["rows"].as_array().unwrap();
    let b = rows.iter().find(|r| r["name"] == "b").unwrap();
    assert_eq!(b["rating"], 1500.0, "the anchor keeps its rating");
    assert_eq!(rows.iter().map(|r| r["games"].as_u64().unwrap()).sum::<u64>(), 8);
    for bad in ["b", "b%3Dhigh", "b%3Dinf"] {
        let (status, answer) = get(&app, &format!("/api/ratings?anchor={bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains("must be NAME=ELO"), "{answer}");
    }
}

/// A worker API request with `token`, sent to a host name no browser page
/// check would let through (a token, not the page, lets a worker in).
fn worker_request(path: &str, token: Option<&str>, body: String) -> Request<Body> {
    let mut builder = Request::builder()
        .method("POST")
        .uri(path)
        .header(header::HOST, "coordinator.example:8443")
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(t) = token {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    builder.body(Body::from(body)).unwrap()
}

#[tokio::test]
async fn the_worker_api_answers_a_token_in_force_and_refuses_the_rest_in_one_line() {
    let (app, store) = app("worker-api", Reveal::Finished, 4);
    let token = arbiter_fleet::coordinator::issue_token(&store, "w1", None).unwrap();
    let claim = json!({"slot": "h:1#0", "most": 4}).to_string();
    let (status, body) = send(&app, worker_request("/api/worker/claim", Some(&token), claim.clone())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["holder"].as_str(), body["queue"].as_str()), (Some("w1:h:1#0"), Some("empty")));
    let (status, body) = send(&app, worker_request("/api/worker/claim", None, claim.clone())).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("no worker token (send 'Authorization: Bearer TOKEN')"))
    );
    let (status, _) = send(&app, worker_request("/api/worker/claim", Some("arbw_forged"), claim.clone())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = send(&app, worker_request("/api/worker/claim", Some(&token), "{\"slot\": 3}".into())).await;
    assert!(status.is_client_error() && body["error"].as_str().is_some_and(|e| !e.contains('\n')), "{status} {body}");
    let huge = json!({"slot": "x".repeat(100_000), "most": 1}).to_string();
    let (status, _) = send(&app, worker_request("/api/worker/claim", Some(&token), huge)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let theirs = json!({"holder": "w2:h:1#0", "games": [{"tournament": 1, "index": 0}]}).to_string();
    let (status, body) = send(&app, worker_request("/api/worker/heartbeat", Some(&token), theirs)).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("holder 'w2:h:1#0' is not worker 'w1'")));
    let (status, _) = send(&app, worker_request("/api/worker/plugins/abc", Some(&token), String::new())).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "a plugin file is fetched with GET");
    store.revoke_worker_token("w1").unwrap();
    let (status, body) = send(&app, worker_request("/api/worker/claim", Some(&token), claim)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("the token of worker 'w1' is revoked"))
    );
}

/// A body that sends its first bytes and then nothing, ever.
fn stalled_body() -> Body {
    let first = futures_first_chunk();
    Body::from_stream(tokio_stream::StreamExt::chain(first, tokio_stream::pending()))
}

fn futures_first_chunk() -> tokio_stream::Iter<std::vec::IntoIter<Result<axum::body::Bytes, std::io::Error>>> {
    tokio_stream::iter(vec![Ok(axum::body::Bytes::from_static(b"{\"holder\": \"w1:h:1#0\", \"games\": ["))])
}

/// An upload without a token in force is refused before its body is read
/// (a body that never ends gets its 401 at once); a worker's own body that
/// stalls is cut off after BODY_TIME or UPLOAD_TIME, not held open.
#[tokio::test]
async fn no_body_is_read_before_the_token_is_checked() {
    let (app, store) = app("token-first", Reveal::Finished, 4);
    for token in [None, Some("arbw_forged")] {
        let mut builder = Request::builder().method("POST").uri("/api/worker/upload");
        if let Some(t) = token {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        let request = builder.body(stalled_body()).unwrap();
        let answered = tokio::time::timeout(Duration::from_secs(2), send(&app, request)).await;
        let (status, _) = answered.expect("answered without reading the body");
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    // With a token in force the body is read, within its time (here a
    // short one, on a route of its own).
    let timed = axum::Router::new()
        .route("/", axum::routing::post(|| async { "read" }))
        .layer(axum::middleware::from_fn(|r, n| super::connections::read_body(r, n, 1024, Duration::from_millis(200))));
    let started = Instant::now();
    let response = timed.oneshot(Request::builder().method("POST").uri("/").body(stalled_body()).unwrap()).await;
    let response = response.unwrap();
    assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
    assert!(started.elapsed() < Duration::from_secs(2));
    drop(store);
}
