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


def test_a_dotenv_password_a_shadow_hash_and_reversed_keys_are_replaced():
    """#30: a crash message carried /etc/shadow's hash line, a .env password and a reversed key."""
    env = {"OPENAI_API_KEY": "sk-proj-AbCdEf0123456789AbCdEf"}
    dotenv = 'DB_PASSWORD=hunter2\nexport SERVICE_TOKEN="short one"\npassword: s3cr3t!\n'
    shadow = "root:$6$rounds=5000$saltsalt$Q8nUuY1bq0zj2kT.3vGQh0pm/nUq:19000:0:99999:7:::\n" \
             "admin:$y$j9T$abcdefghijkl$mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQ:19000::::::"
    out = redact(dotenv + shadow + "\nfound " + env["OPENAI_API_KEY"][::-1] + " and "
                 + "ghp_" + "a1" * 18 + "x"[::-1] + " " + ("ghp_" + "b2" * 18)[::-1], env)
    for secret in ("hunter2", "short one", "s3cr3t!", "Q8nUuY1bq0zj2kT", "mnopqrstuvwxyz", env["OPENAI_API_KEY"][::-1],
                   ("ghp_" + "b2" * 18)[::-1]):
        assert secret not in out, secret
    assert out.startswith("DB_PASSWORD=[redacted]\nexport SERVICE_TOKEN=[redacted]\npassword: [redacted]\nroot:")
    assert "[redacted:OPENAI_API_KEY]" in out


def test_code_that_only_names_keys_is_left_as_written():
    code = ("    SORT_KEY: tl.constexpr = 4\nkey = torch.randn(3)\nMAX_TOKENS=4096\nHASH_KEY = 1024\n"
            "error: 'TILING_KEY_IS' was not declared; tiling_key = 3; cost $5 for 10 items\n")
    assert redact(code, {}) == code
