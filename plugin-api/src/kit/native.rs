//! The native interface of a kit variant: its adapters behind the ABI's
//! `GameState` and `VariantFactory` traits (abi_stable), as the `cdylib` a
//! native build of the plugin exports.

use std::cell::RefCell;

use abi_stable::sabi_trait::TD_CanDowncast;
use abi_stable::std_types::{RErr, RNone, ROk, ROption, RResult, RSome, RStr, RString, RVec};

use super::adapter::{GameAdapter, VariantAdapter};
use super::{Game, Variant};
use crate::abi::{
    GameState, GameStateBox, GameState_TO, RawError, RawObservation, RawStatus, RawViewer, VariantFactory,
};
use crate::{Error, Viewer};

fn raw_result<T, U>(r: Result<T, Error>, f: impl FnOnce(T) -> U) -> RResult<U, RawError> {
    match r {
        Ok(v) => ROk(f(v)),
        Err(e) => RErr(e.to_raw()),
    }
}

thread_local! {
    /// Reused buffer the kit collects legal moves in before handing them over.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A game behind the ABI, downcastable so that `copy_from` can reach the other state.
fn boxed<G: Game>(game: GameAdapter<G>) -> GameStateBox {
    GameState_TO::from_value(game, TD_CanDowncast)
}

impl<G: Game> GameState for GameAdapter<G> {
    fn to_move(&self) -> u32 {
        GameAdapter::to_move(self)
    }

    fn status(&self) -> RawStatus {
        GameAdapter::status(self).to_raw()
    }

    fn legal_moves_into(&self, out: &mut RVec<u64>) -> RResult<(), RawError> {
        out.clear();
        let r = SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            GameAdapter::legal_moves(self, &mut s).map(|()| out.extend_from_copy_slice(&s))
        });
        raw_result(r, |_| ())
    }

    fn apply(&mut self, mv: u64) -> RResult<(), RawError> {
        raw_result(GameAdapter::apply(self, mv), |_| ())
    }

    fn copy_from(&mut self, other: &GameStateBox) -> RResult<(), RawError> {
        let r = match other.obj.downcast_as::<GameAdapter<G>>() {
            Ok(o) => GameAdapter::copy_from(self, o),
            Err(_) => Err(Error::unsupported("copy_from: the other state belongs to another variant")),
        };
        raw_result(r, |_| ())
    }

    fn perft(&self, depth: u32) -> RResult<u64, RawError> {
        raw_result(GameAdapter::perft(self, depth), |n| n)
    }

    fn move_to_text(&self, mv: u64, viewer: RawViewer) -> RResult<RString, RawError> {
        raw_result(GameAdapter::move_text(self, mv, Viewer::from_raw(viewer)), RString::from)
    }

    fn parse_move(&self, text: RStr<'_>) -> RResult<u64, RawError> {
        raw_result(GameAdapter::parse_move(self, text.as_str()), |m| m)
    }

    fn position_text(&self) -> RString {
        GameAdapter::position_text(self).into()
    }

    fn observe(&self, viewer: RawViewer) -> RResult<RawObservation, RawError> {
        raw_result(GameAdapter::observe(self, Viewer::from_raw(viewer)), |(text, json)| RawObservation {
            text: text.into(),
            json: json.into(),
        })
    }

    fn sample_world(&self, viewer: RawViewer, seed: u64) -> RResult<GameStateBox, RawError> {
        raw_result(GameAdapter::sample_world(self, Viewer::from_raw(viewer), seed), boxed)
    }

    fn evaluate(&self, player: u32) -> ROption<f64> {
        match GameAdapter::evaluate(self, player) {
            Some(v) => RSome(v),
            None => RNone,
        }
    }

    fn can_win(&self, player: u32) -> bool {
        GameAdapter::can_win(self, player)
    }

    fn call_json(&mut self, method: RStr<'_>, args_json: RStr<'_>) -> RResult<RString, RawError> {
        raw_result(GameAdapter::call_json(self, method.as_str(), args_json.as_str()), RString::from)
    }
}

impl<V: Variant> VariantFactory for VariantAdapter<V> {
    fn id(&self) -> RString {
        VariantAdapter::id(self).into()
    }

    fn info_json(&self) -> RString {
        VariantAdapter::info_json(self).into()
    }

    fn new_game(&self, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        raw_result(VariantAdapter::new_game(self, options_json.as_str()), boxed)
    }

    fn from_position(&self, text: RStr<'_>, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        raw_result(VariantAdapter::from_position(self, text.as_str(), options_json.as_str()), boxed)
    }
}
