/// The timeline page's script, hand-written JavaScript in parts by concern
/// (each part a real file in `Assets/`, embedded by `TimelineAssets.swift`,
/// which a test keeps equal to them), run as one strict
/// function when the page loads. It reads the data element with
/// `JSON.parse` and creates every element itself; text from the log only
/// ever becomes text nodes (`append(string)`, `textContent`), never markup.
enum TimelineScript {
    /// The parts, in the order they are joined.
    static let parts = [prologue, model, text, list, panels, diff, charts, app, epilogue]

    /// Opens the function that holds the whole script.
    static let prologue = #"""
        (() => {
        'use strict';
        """#

    /// Closes it.
    static let epilogue = #"""
        })();
        """#
}
