//! The MuranoPL test framework of `vetro test`: fixtures with an environment,
//! method mocks (`inject`, `originalMethod`) and assertions, over packages
//! written here.

use vetro_diag::SourceMap;
use vetro_dsl::host::Library;
use vetro_dsl::package::{Package, PackageFiles};
use vetro_dsl::testing::{self, TestResult};

fn library(classes: &str) -> Library {
    let mut files = PackageFiles::new();
    let mut manifest =
        String::from("Format: MuranoPL/1.4\nFullName: fw\nVersion: 1.0.0\nClasses:\n");
    for line in classes.lines() {
        if let Some(c) = line.strip_prefix("Name: ") {
            manifest += &format!("  fw.{}: tests.yaml\n", c.trim());
        }
    }
    files.insert("manifest.yaml".into(), manifest.into_bytes());
    files.insert("Classes/tests.yaml".into(), classes.as_bytes().to_vec());
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("fw", files, &mut sources);
    let lib = Library::from_packages(vec![pkg], sources);
    let errors: Vec<_> = lib
        .problems()
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    lib
}

/// Every test's outcome as `method: ok` or `method: <failure>`.
fn outcomes(results: &[TestResult]) -> Vec<String> {
    results
        .iter()
        .map(|r| match &r.failure {
            None => format!("{}: ok", r.method),
            Some(f) => format!("{}: {} {}", r.method, f.names.join(","), f.message),
        })
        .collect()
}

const HEADER: &str =
    "Namespaces:\n  =: fw\n  tst: io.murano.test\n  std: io.murano\n  sys: io.murano.system\n";

#[test]
fn fixture_with_environment_gives_each_test_its_environment() {
    let lib = library(&format!(
        r#"{HEADER}Name: EnvTests
Extends: tst:TestFixtureWithEnvironment
Methods:
  testHasEnvironment:
    Body:
      - $this.assertEqual('io.murano.Environment', typeinfo($this.environment).name)
      - $this.assertTrue($this.environment.name.indexOf('fw.EnvTests') >= 0)
      - $this.assertEqual('io.murano.test.DummyNetwork', typeinfo($this.environment.defaultNetworks.environment).name)
  testLazySequencesCompareAsLists:
    Body:
      - $this.assertEqual(range(1, 4).select($ * 2), [2, 4, 6].where(true))
      - $this.assertIn(4, range(10).where($ > 3))
"#
    ));
    let results = testing::run_all(&lib, None);
    assert_eq!(
        outcomes(&results),
        vec![
            "testHasEnvironment: ok",
            "testLazySequencesCompareAsLists: ok"
        ]
    );
}

#[test]
fn inject_replaces_a_method_for_objects_of_exactly_that_class() {
    let lib = library(&format!(
        r#"{HEADER}Name: Greeter
Methods:
  greet:
    Arguments:
      - who: {{Contract: $.string()}}
    Body:
      - Return: format('hello {{0}}', $who)
  welcome:
    Arguments:
      - who: {{Contract: $.string()}}
    Body:
      - Return: $this.greet($who) + '!'
---
Name: LoudGreeter
Extends: Greeter
---
Name: MockTests
Extends: tst:TestFixture
Properties:
  calls: {{Usage: Runtime, Contract: $, Default: []}}
Methods:
  fakeGreet:
    Arguments:
      - who: {{Contract: $}}
    Body:
      - $this.calls: $this.calls.append($who)
      - Return: format('mocked {{0}}', $who)
  testMethodMock:
    Body:
      - $g: new(Greeter)
      - inject(Greeter, greet, $this, fakeGreet)
      - $this.assertEqual('mocked ann!', $g.welcome(ann))
      - $this.assertEqual([ann], $this.calls)
      # A subclass is another class: its objects keep the original.
      - $this.assertEqual('hello bob!', new(LoudGreeter).welcome(bob))
  testExpressionMockWithTheOriginal:
    Body:
      - $g: new(Greeter)
      - inject($g, greet, originalMethod() + ' via ' + typeinfo($).name + ' for ' + $2)
      - $this.assertEqual('hello cy via fw.MockTests for cy!', $g.welcome(cy))
  testWithOriginal:
    Body:
      - $g: new(Greeter)
      # `$who` is the calling method's argument, `$this` the greeter.
      - inject(Greeter, greet, withOriginal(w => $who, t => typeinfo($this).name) -> $w + ' at ' + $t)
      - $this.assertEqual('eve at fw.Greeter!', $g.welcome(eve))
      # Each name is bound in a context of its own for the expression.
      - inject(Greeter, greet, [withOriginal(w => $who) -> $w, $2, typeinfo($).name].join(' '))
      - $this.assertEqual('fay fay fw.MockTests!', $g.welcome(fay))
  testWithOriginalOutsideAMock:
    Body:
      - Return: withOriginal(x => 1) -> $x
  testMocksEndWithTheTest:
    Body:
      - $this.assertEqual('hello dee!', new(Greeter).welcome(dee))
  testUnknownMethodCannotBeMocked:
    Body:
      - inject(Greeter, noSuchMethod, '')
"#
    ));
    let results = testing::run_all(&lib, None);
    let got = outcomes(&results);
    assert_eq!(
        got[..5],
        [
            "testMethodMock: ok",
            "testExpressionMockWithTheOriginal: ok",
            "testWithOriginal: ok",
            "testWithOriginalOutsideAMock: RuntimeError \
             withOriginal() is only defined inside a mock expression",
            "testMocksEndWithTheTest: ok"
        ]
    );
    assert!(
        got[5].starts_with("testUnknownMethodCannotBeMocked: murano.dsl.exceptions.NoMethodFound"),
        "{}",
        got[5]
    );
}
