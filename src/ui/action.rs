//! What a key press asks for. Key bindings map to these (see `keymap`); the reducer in `app`
//! applies them.

/// A user action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Ctrl-C: quits from anywhere, the help and typing included (it cannot be rebound).
    Interrupt,
    ToggleHelp,
    TogglePause,
    /// Back to the start of a scenario, a trace or the lab's documents, and play.
    Restart,
    Faster,
    Slower,
    /// Step the clock one second forward (true) or back, and pause.
    Step(bool),
    /// Jump ten seconds forward or back.
    Seek(bool),
    /// Jump to the next or previous migration.
    Migration(bool),
    FocusNext,
    FocusPrev,
    /// Next or previous collection.
    Collection(bool),
    Left,
    Right,
    Up,
    Down,
    /// A page up (true) or down: the help, the event log and the shard list scroll by a page.
    Page(bool),
    ZoomIn,
    ZoomOut,
    /// The whole of what the focused pane points at: the event under the events pane's cursor,
    /// the balancer pane's "why"; elsewhere a zoom in (Enter's old meaning).
    Open,
    ZoomReset,
    ToggleMetric,
    ToggleZones,
    ToggleHeat,
    /// The explain panel (the balancer's rules per shard for the selected chunk) in place of the
    /// event log, and back.
    ToggleExplain,
    /// The key visualizer (writes per key range over time) in place of the main layout, and back.
    ToggleKeyVisualizer,
    /// The history view (per-shard series over time) in place of the main layout, and back.
    ToggleHistory,
    /// The lab's candidates side by side in place of the main layout, and back.
    ToggleLab,
    /// The what-if mode: a prompt for the changes, then the fork beside "now"; again leaves it.
    ToggleWhatIf,
    /// Halve (true) or double the seconds per column of a view over time.
    TimeZoom(bool),
    /// Write the screen to files in the working folder (the runtime does it).
    Export,
    /// The command palette: every command of the screen shown, filtered as one types.
    OpenPalette,
    /// Copy the selected key-space cell's bounds to the clipboard (the runtime sends OSC 52).
    Copy,
    /// Next order of the shard list (name, data, chunks, writes, orphans).
    CycleShardSort,
    CycleLogFilter,
    StartSearch,
    /// Type a query filter whose targeting the key space shows.
    StartQuery,
    SearchChar(char),
    SearchBackspace,
    /// An edit of the text being typed (the shared line editor: cursor, deletions, history).
    Edit(super::line_editor::Edit),
    SearchDone,
    Escape,
    Resize(u16, u16),
    /// A left click at (column, row).
    Click(u16, u16),
    /// The mouse wheel at (column, row): up (true) or down.
    Wheel(bool, u16, u16),
}
