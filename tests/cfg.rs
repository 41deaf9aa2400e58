//! `run --emit cfg|dot`: each function's control-flow graph, drawn as `:cfg` draws it or as a
//! graphviz file, of a loop shader glslang compiles here, before and after `O` (which unrolls
//! and merges its blocks).

mod common;

use common::{glslang, shaderstep, temp_dir};

const LOOPS: &str = "#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { float v[]; };
void main() {
    float acc = 0.0;
    for (int i = 0; i < 8; i++) {
        if (v[i] > 0.5) {
            acc += v[i];
        } else {
            acc -= 1.0;
        }
    }
    v[0] = acc;
}
";

fn emit(args: &[&str]) -> String {
    let r = shaderstep(args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    String::from_utf8(r.stdout).unwrap()
}

#[test]
fn a_loop_shader_s_graph_is_drawn_with_its_constructs() {
    let dir = temp_dir("cfg-emit");
    let spv = glslang(&dir, "loops.comp", LOOPS);
    let spv = spv.to_str().unwrap();
    let text = emit(&["run", spv, "--emit", "cfg"]);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("; function %main: 9 blocks,") && first.contains("(1 back)"),
        "{text}"
    );
    for want in [
        "· entry",
        "· loop header",
        "· selection",
        "· continue",
        "· merge, return",
        "╎",
        "◄",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    // The graph after `O` has fewer blocks: the loop is gone or smaller.
    let after = emit(&["run", spv, "--preset", "O", "--emit", "cfg"]);
    let blocks = |t: &str| {
        t.lines()
            .filter(|l| l.trim_start().starts_with('┌'))
            .count()
    };
    assert!(blocks(&after) < blocks(&text), "{after}");
    // Graphviz: a digraph with the back edge dashed and the merge declared.
    let dot = emit(&["run", spv, "--emit", "dot"]);
    assert!(dot.starts_with("digraph \"%main\" {"), "{dot}");
    assert!(
        dot.contains("style=dashed") && dot.contains("label=\"merge\""),
        "{dot}"
    );
    assert!(
        dot.contains("label=\"T\"") && dot.contains("label=\"F\""),
        "{dot}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
