//! The demo's scenarios in quick mode (issue 14): every odm row shows no
//! anomaly. The scenarios are the example's own modules, so the demo cannot
//! rot without this test failing.

#[path = "../examples/demo/mod.rs"]
#[allow(dead_code)] // what only the example uses (the full size, its preamble)
mod scenarios;

use odm_testing::TestDb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_odm_row_of_the_quick_demo_is_right() {
    let t = TestDb::new().await;
    let reports = scenarios::run(&t.db, scenarios::Size::quick())
        .await
        .expect("the demo ran");
    let table = scenarios::table(&reports);
    println!("{table}");
    assert_eq!(reports.len(), scenarios::SCENARIOS.len());
    for report in &reports {
        assert!(report.ok(), "an odm row is wrong:\n{table}");
        assert_eq!(report.odm.len(), report.scenario.odm.len());
        for m in report.odm.iter().chain([&report.naive]) {
            assert!(m.of > 0, "a row counted nothing:\n{table}");
        }
    }
    t.finish().await;
}
