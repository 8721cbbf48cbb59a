"""Secrets are taken out of text: secret-named environment values and key-shaped strings."""
from provenance.redact import redact, redact_tree, secret_names


def test_the_value_of_a_secret_named_variable_is_replaced_wherever_it_appears():
    env = {"OPENAI_API_KEY": "abc123-custom-value", "MY_SERVICE_TOKEN": "tok-zzzzzzzz", "PATH": "/usr/bin:/bin"}
    text = "KeyError: environ has abc123-custom-value and tok-zzzzzzzz; PATH is /usr/bin:/bin"
    out = redact(text, env)
    assert "abc123-custom-value" not in out and "tok-zzzzzzzz" not in out
    assert "[redacted:OPENAI_API_KEY]" in out and "[redacted:MY_SERVICE_TOKEN]" in out
    assert "/usr/bin:/bin" in out  # not a secret: left alone
    assert secret_names(env) == ["MY_SERVICE_TOKEN", "OPENAI_API_KEY"]


def test_names_that_say_where_not_what_are_not_secrets():
    env = {"SSH_AUTH_SOCK": "/tmp/ssh-abc/agent.1", "GNUPG_KEY_DIR": "/home/u/.gnupg", "AWS_SESSION_TOKEN": "t" * 20}
    assert secret_names(env) == ["AWS_SESSION_TOKEN"]


def test_short_values_of_secret_named_variables_are_settings_and_are_left_alone():
    assert redact("retries: 3", {"AUTH_RETRIES": "3"}) == "retries: 3"


def test_key_shapes_are_replaced_even_when_no_variable_holds_them():
    keys = ["sk-proj-AbCdEf0123456789AbCdEf", "sk-ant-api03-abcdefghijklmnopqrstu", "AKIAIOSFODNN7EXAMPLE",
            "ghp_" + "a1" * 18, "hf_" + "Q" * 34, "AIza" + "x" * 35]
    for key in keys:
        out = redact(f"raise RuntimeError('{key}')", {})
        assert key not in out and "[redacted]" in out, key
    assert redact("import sklearn; sk-learn is a name, not a key", {}) == "import sklearn; sk-learn is a name, not a key"


def test_a_tree_is_redacted_in_its_strings_and_keeps_its_shape():
    env = {"ANTHROPIC_API_KEY": "secret-value-123"}
    tree = {"message": "got secret-value-123", "cases": [{"error": "x secret-value-123"}, 3, None], "n": 2}
    assert redact_tree(tree, env) == {"message": "got [redacted:ANTHROPIC_API_KEY]",
                                      "cases": [{"error": "x [redacted:ANTHROPIC_API_KEY]"}, 3, None], "n": 2}
