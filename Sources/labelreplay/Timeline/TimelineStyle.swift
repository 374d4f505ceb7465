/// The timeline page's style sheet (hand-written, in `Assets/timeline.css`,
/// embedded by `TimelineAssets.swift`; allowed by its hash in the page's
/// Content-Security-Policy). The script sets only `top` and `height`
/// through the CSSOM, which the policy does not restrict.
enum TimelineStyle {
}
