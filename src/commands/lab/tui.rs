//! `shardtop lab` in a terminal: the candidates side by side, advancing in lockstep as the
//! inserts arrive (pause, speed and step as in `demo`); Enter opens one in the full layout.

use super::Docs;
use crate::analyze::operation::Operation;
use crate::cli::lab::LabArgs;
use crate::commands::Failure;
use crate::commands::settings::Context;
use crate::lab::trial::run::ClusterSpec;
use crate::lab::trial::{Arrival, Trial};
use crate::model::KeyPattern;
use crate::source::lab::LabTimeline;
use crate::source::{Playback, run_timeline};
use crate::ui::screen::Screen;

/// What every fresh trial is made of.
pub struct TrialSpec {
    pub spec: ClusterSpec,
    pub arrival: Arrival,
    pub keys: Vec<KeyPattern>,
    pub unique: Vec<KeyPattern>,
}

pub fn run(
    args: &LabArgs,
    ctx: &Context,
    trial: TrialSpec,
    docs: Docs,
    traffic: Vec<Operation>,
) -> Result<(), Failure> {
    // The documents are kept, so that going back can start again from the layout.
    let docs = docs.collect::<Result<Vec<_>, Failure>>()?;
    super::absent_key_field(&trial.keys, &docs)?;
    let new_trial = Box::new(move || {
        Trial::new(
            trial.spec.clone(),
            trial.arrival.clone(),
            &trial.keys,
            &trial.unique,
        )
    });
    let timeline = LabTimeline::new(new_trial, docs, traffic).map_err(Failure::input)?;
    let playback = Playback {
        speed: crate::commands::settings::speed_of(args.speed, ctx)?,
        paused: args.paused,
        start_ms: None,
    };
    let rt = crate::commands::terminal::runtime()?;
    let start =
        move |to_ui, controls| run_timeline(timeline, playback, Vec::new(), to_ui, controls);
    crate::commands::terminal::run_source_in(
        rt,
        start,
        playback.speed,
        playback.paused,
        &ctx.settings,
        |app| app.screen = Screen::Lab,
    )
}
