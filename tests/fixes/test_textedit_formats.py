"""HCL and JSON edits: only the inserted span changes, the result parses again, and what the
scan cannot place safely (one-line blocks, dynamic blocks, a key already there, bad input) is
left alone."""

from __future__ import annotations

import json

import hcl2

from finlint.textedit import apply_edits
from finlint.textedit.hcl import hcl_add, hcl_append_after
from finlint.textedit.json_members import json_add_key

TF = """resource "aws_batch_job_definition" "train" {
  name = "llm-{train}"   # a brace } in a comment
  /* and { in a block comment */
  type = "container"
  container_properties = <<-EOT
    {"image": "x", "command": ["}"]}
  EOT
  tags = { team = "${lookup(var.t, "}", "ml")}" }
}

resource "aws_s3_bucket" "ckpt" {
  bucket = "ckpt"
}
"""


def _apply(text: str, edit: object) -> str:
    assert edit is not None
    return apply_edits(text, [edit])  # type: ignore[list-item]


def test_hcl_nested_block_skips_strings_heredocs_and_comments() -> None:
    out = _apply(TF, hcl_add("main.tf", TF, 1, ("timeout",), "attempt_duration_seconds", "3600"))
    assert out == TF.replace('" }\n}\n', '" }\n  timeout {\n    attempt_duration_seconds = 3600\n  }\n}\n', 1)
    parsed = hcl2.loads(out)
    job = parsed["resource"][0]['"aws_batch_job_definition"']['"train"']  # python-hcl2 8 keeps quotes
    assert job["timeout"][0]["attempt_duration_seconds"] == 3600


def test_hcl_attribute_in_an_existing_block_at_its_indentation() -> None:
    text = (
        'resource "aws_sagemaker_training_job" "t" {\n    stopping_condition {\n'
        "        max_wait = 10\n    }\n}\n"
    )
    out = _apply(text, hcl_add("m.tf", text, 1, ("stopping_condition",), "max_runtime_in_seconds", "86400"))
    assert out == text.replace("= 10\n", "= 10\n        max_runtime_in_seconds = 86400\n")
    hcl2.loads(out)


def test_hcl_left_alone_where_placement_is_ambiguous() -> None:
    one_line = 'resource "aws_batch_job_definition" "t" { name = "x" }\n'
    assert hcl_add("m.tf", one_line, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    dynamic = 'resource "a" "b" {\n  dynamic "timeout" {\n    for_each = []\n    content {}\n  }\n}\n'
    assert hcl_add("m.tf", dynamic, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    attribute = 'resource "a" "b" {\n  timeout = { attempt_duration_seconds = 5 }\n}\n'
    assert hcl_add("m.tf", attribute, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    there = 'resource "a" "b" {\n  timeout {\n    attempt_duration_seconds = 5\n  }\n}\n'
    assert hcl_add("m.tf", there, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    unterminated = 'resource "a" "b" {\n  name = "x\n}\n'
    assert hcl_add("m.tf", unterminated, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    assert hcl_add("m.tf", TF, 2, ("timeout",), "attempt_duration_seconds", "1") is None  # no block opens


def test_hcl_block_appended_after_a_resource() -> None:
    block = 'resource "aws_s3_bucket_lifecycle_configuration" "ckpt" {\n  bucket = aws_s3_bucket.ckpt.id\n}'
    out = _apply(TF, hcl_append_after("main.tf", TF, 11, block))
    assert out == TF + "\n" + block + "\n"
    assert len(hcl2.loads(out)["resource"]) == 3
    no_eol = TF.rstrip("\n")
    assert _apply(no_eol, hcl_append_after("main.tf", no_eol, 11, block)) == no_eol + "\n\n" + block + "\n"


def test_json_key_on_its_own_line_with_the_files_indentation_and_separator() -> None:
    text = '{\r\n    "a":1,\r\n    "b": {"c": [1, {"}": "{"}]}\r\n}\r\n'
    out = _apply(text, json_add_key("f.json", text, 1, ("S",), "M", "5"))
    assert out == '{\r\n    "a":1,\r\n    "b": {"c": [1, {"}": "{"}]},\r\n    "S":{"M":5}\r\n}\r\n'
    assert json.loads(out)["S"] == {"M": 5}


def test_json_inline_object_empty_object_and_existing_path() -> None:
    text = '{"R": {"X": {"P": {"T": "c"}}}, "E": {}}'
    out = _apply(text, json_add_key("f.json", text, 1, ("R", "X", "P"), "K", '"v"', 3))
    assert json.loads(out)["R"]["X"]["P"] == {"T": "c", "K": "v"}
    assert out == text.replace('"T": "c"', '"T": "c", "K": "v"')
    out = _apply(text, json_add_key("f.json", text, 1, ("E",), "K", "1", 1))
    assert json.loads(out)["E"] == {"K": 1}


def test_json_left_alone() -> None:
    assert json_add_key("f.json", '{"a": 1}', 1, (), "a", "2") is None  # there already
    assert json_add_key("f.json", '{"a": 1,}', 1, (), "b", "2") is None  # not strict JSON
    assert json_add_key("f.json", '{"a": [1]}', 1, ("a",), "b", "2") is None  # not an object
    assert json_add_key("f.json", '{"a": 1}', 1, ("R", "P"), "b", "2", 1) is None  # R must exist
    assert json_add_key("f.json", '{"a": 1}', 2, (), "b", "2") is None  # no object opens there


def test_yaml_nested_block_in_the_files_own_step() -> None:
    import yaml

    from finlint.textedit import yaml_add_key

    text = (
        "Resources:\n    B:\n        Type: AWS::S3::Bucket\n"
        "        Properties:\n            BucketName: ckpt\n"
    )
    edit = yaml_add_key(
        "t.yaml", text, 1, ("Resources", "B", "Properties"), "L", "Rules:\n  - Id: x\n    Days: 3", 3
    )
    out = _apply(text, edit)
    assert out == text.replace(
        "        Properties:\n",
        "        Properties:\n            L:\n                Rules:\n"
        "                    - Id: x\n                      Days: 3\n",
    )
    assert yaml.safe_load(out)["Resources"]["B"]["Properties"]["L"] == {"Rules": [{"Id": "x", "Days": 3}]}


def test_json_value_expanded_in_the_files_step() -> None:
    text = '{\n    "R": {\n        "T": "x"\n    }\n}\n'
    edit = json_add_key("f.json", text, 1, ("R",), "L", '{"Rules": [{"Id": "a"}]}', 1, expand=True)
    out = _apply(text, edit)
    assert out == text.replace(
        '"T": "x"\n',
        '"T": "x",\n        "L": {\n            "Rules": [\n                {\n'
        '                    "Id": "a"\n                }\n            ]\n        }\n',
    )
    assert json.loads(out)["R"]["L"] == {"Rules": [{"Id": "a"}]}


def test_hcl_literal_reads_only_plain_strings() -> None:
    from finlint.textedit.hcl import hcl_literal

    text = (
        'resource "aws_sagemaker_training_job" "t" {\n  output_data_config {\n'
        '    s3_output_path = "s3://b/out" # c\n  }\n  other {\n'
        '    s3_output_path = "s3://${var.b}/x"\n  }\n}\n'
    )
    assert hcl_literal(text, 1, ("output_data_config",), "s3_output_path") == "s3://b/out"
    assert hcl_literal(text, 1, ("other",), "s3_output_path") is None  # interpolated
    assert hcl_literal(text, 1, ("missing",), "s3_output_path") is None


def test_hostile_input_is_refused_not_raised() -> None:
    deep = '{"a": ' * 5000 + "1" + "}" * 5000
    assert json_add_key("f.json", deep, 1, (), "k", "1") is None  # nested past MAX_DEPTH
    assert json_add_key("f.json", '{"a": "\\ud800', 1, (), "k", "1") is None  # unterminated
    unbalanced = 'resource "a" "b" {\n' * 3000
    assert hcl_add("m.tf", unbalanced, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    heredoc = 'resource "a" "b" {\n  x = <<EOT\n  }\n'  # a heredoc that never ends
    assert hcl_add("m.tf", heredoc, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    assert hcl_append_after("m.tf", heredoc, 1, "x {\n}") is None


def test_heredoc_body_and_yaml_within_it() -> None:
    from finlint.textedit import yaml_add_key_within
    from finlint.textedit.hcl import heredoc_body

    text = 'resource "k" "p" {\n  yaml_body = <<-YAML\n    kind: X\n    spec:\n      a: 1\n  YAML\n}\n'
    assert heredoc_body(text, 4) == (3, 5)
    assert heredoc_body(text, 1) is None and heredoc_body(text, 7) is None
    edit = yaml_add_key_within("m.tf", text, (3, 5), 4, ("spec",), "b", "2")
    assert _apply(text, edit) == text.replace("      a: 1\n", "      b: 2\n      a: 1\n")


def test_json_offsets_are_characters_with_tabs_and_non_ascii_before_the_edit() -> None:
    text = '{\n\t"n": "ééé€😀",\n\t"J": {"a": 1}\n}\n'
    edit = json_add_key("f.json", text, 1, ("J",), "b", "2", 1)
    assert edit is not None
    after = apply_edits(text, [edit])
    assert json.loads(after) == {"n": "ééé€😀", "J": {"a": 1, "b": 2}}
    assert after.replace(', "b": 2', "") == text


def test_json_with_an_astral_escape_gets_no_edit_rather_than_a_shifted_one() -> None:
    text = '{"n": "\\ud83d\\ude00", "J": {"a": 1}}\n'  # libyaml would read it at other offsets
    assert json.loads(text)["n"] == "😀"
    assert json_add_key("f.json", text, 1, ("J",), "b", "2", 1) is None


DECOYS = """resource "aws_batch_job_definition" "train" {
  # timeout {
  #   attempt_duration_seconds = 5
  # }
  /* timeout { attempt_duration_seconds = 5 } } */
  description = "timeout { attempt_duration_seconds = 5 } }"
  container_properties = <<-EOT
    timeout {
      attempt_duration_seconds = 5
    }
    }
  EOT
  tags = { a = "${jsonencode({ b = "}" })}", c = "$${x}" } // }
}
"""


def test_block_like_text_in_comments_strings_and_heredocs_is_not_structure() -> None:
    out = _apply(DECOYS, hcl_add("m.tf", DECOYS, 1, ("timeout",), "attempt_duration_seconds", "60"))
    added = "  timeout {\n    attempt_duration_seconds = 60\n  }\n"
    assert out == DECOYS.replace(" // }\n}\n", " // }\n" + added + "}\n")
    job = hcl2.loads(out)["resource"][0]['"aws_batch_job_definition"']['"train"']
    assert job["timeout"][0]["attempt_duration_seconds"] == 60
    block = 'resource "aws_s3_bucket" "b" {\n  bucket = "b"\n}'
    assert _apply(DECOYS, hcl_append_after("m.tf", DECOYS, 1, block)) == DECOYS + "\n" + block + "\n"
    for line in (2, 5, 8):  # "timeout {" in a comment, a block comment, a heredoc: no block opens
        assert hcl_add("m.tf", DECOYS, line, (), "attempt_duration_seconds", "1") is None


def test_nested_block_header_line_and_crlf() -> None:
    text = 'resource "a" "b" {\r\n  timeout {\r\n    x = 1\r\n  }\r\n}\r\n'
    out = _apply(text, hcl_add("m.tf", text, 2, (), "attempt_duration_seconds", "5"))
    assert out == text.replace("x = 1\r\n", "x = 1\r\n    attempt_duration_seconds = 5\r\n")
    hcl2.loads(out)
    bom = "\ufeff" + text  # finlint fix reads it as written; the loader parsed it without the mark
    assert _apply(bom, hcl_add("m.tf", bom, 2, (), "attempt_duration_seconds", "5")) == "\ufeff" + out


def test_a_file_that_does_not_parse_gets_no_edit() -> None:
    from finlint.textedit.hcl import hcl_literal, heredoc_body

    bad = 'resource "a" "b" {\n  x = = 1\n  o {\n    p = "s3://b"\n  }\n}\n'  # braces balance
    assert hcl_add("m.tf", bad, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    assert hcl_append_after("m.tf", bad, 1, "x {\n}") is None
    assert hcl_literal(bad, 1, ("o",), "p") is None
    heredoc = 'resource "k" "p" {\n  y = <<-Y\n    a: 1\n  Y\n  z = = 1\n}\n'
    assert heredoc_body(heredoc, 3) is None
    separators = 'resource "a" "b" {\n  name = "x\u2028y"\n}\n'  # a line break to str.splitlines
    assert hcl_add("m.tf", separators, 1, ("timeout",), "attempt_duration_seconds", "1") is None


def test_closing_brace_shared_with_other_code_gets_no_edit() -> None:
    shared = 'resource "a" "b" {\n  tags = {\n    a = 1\n  } }\n'
    assert hcl_add("m.tf", shared, 1, ("timeout",), "attempt_duration_seconds", "1") is None
    assert hcl_append_after("m.tf", shared, 1, "x {\n}") is None
    commented = 'resource "a" "b" {\n  name = "n"\n} # end\n'
    out = _apply(commented, hcl_add("m.tf", commented, 1, (), "attempt_duration_seconds", "1"))
    assert out == commented.replace("} # end", "  attempt_duration_seconds = 1\n} # end")
    assert hcl_append_after("m.tf", commented, 1, "x {\n}") is None  # a comment after the brace


def test_hcl_literal_refuses_what_would_need_escaping_again() -> None:
    from finlint.textedit.hcl import hcl_literal

    def literal(value: str) -> str | None:
        text = f'resource "a" "b" {{\n  o {{\n    p = {value}\n  }}\n}}\n'
        return hcl_literal(text, 1, ("o",), "p")

    assert literal('"s3://b/o"') == "s3://b/o"
    assert literal('"s3://b/\\"o"') is None  # an escaped quote
    assert literal('"s3://b/$${o}"') is None  # an escaped interpolation
    assert literal('"s3://b/%{if true}x%{endif}"') is None  # a directive
    assert literal("<<EOT\ns3://b/o\nEOT\n") is None  # a heredoc
    assert literal("var.path") is None  # not a string
    twice = 'resource "a" "b" {\n  o {\n    p = "s3://x"\n    p = "s3://y"\n  }\n}\n'
    assert hcl_literal(twice, 1, ("o",), "p") is None


def test_heredoc_body_is_not_fooled_by_heredoc_like_text_inside_it() -> None:
    from finlint.textedit.hcl import heredoc_body

    text = (
        'resource "k" "p" {\n  yaml_body = <<-YAML\n    kind: X\n    script: |\n'
        "      a = <<EOF\n      echo\n      EOF\n    spec:\n      a: 1\n  YAML\n}\n"
    )
    assert heredoc_body(text, 9) == (3, 9)
    assert heredoc_body(text, 6) == (3, 9)
    assert heredoc_body(text, 10) is None
    underscore = 'resource "k" "p" {\n  yaml_body = <<_Y\nkind: X\n_Y\n}\n'  # HCL allows it
    assert heredoc_body(underscore, 3) == (3, 3)
    item = 'module "m" {\n  groups = [{\n    content = <<-EOT\n      a: 1\n\n      b: 2\n    EOT\n  }]\n}\n'
    assert [heredoc_body(item, n) for n in (3, 4, 6, 7)] == [None, (4, 6), (4, 6), None]  # an object's key
