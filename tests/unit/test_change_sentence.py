"""The change sentence on the cases the labelled set (tests/fixtures/labelled/) found it wrong:
pointers, opinions, descriptions of the code, lists told by their lead-in, titles that name no
change; crafted bodies shaped as the labelled PRs'."""

from __future__ import annotations

import pytest

from orchestration.descriptions.function import describe
from tests.unit.test_descriptions import read, seeds


@pytest.mark.parametrize(
    ("title", "body", "summary"),
    [
        (  # a pointer to the issue, then the change
            "[ckpt] replace the loader",
            "Try to resolve this [issue](https://github.com/acme/crafted/issues/3).\n\n"
            "As suggested by the discussion, I replace the loader with a stateful one, which "
            "keeps its position.",
            "As suggested by the discussion, I replace the loader with a stateful one, which "
            "keeps its position.",
        ),
        ("Remove Box::pin usages", "Rust 1.75 update follow-up, simplifies the code.", None),
        ("Remove the metadata worker", "We've stopped using this for now.", None),
        ("[vllm] fix: restore the patch", "fix ci error introduced by #7061", None),
        (  # the items of a list its lead-in announces as the changes
            "fix the split placement example",
            "The example is outdated. To address this, the following changes were made in this "
            "PR\n1. Copied the trainer config to the example's own config folder\n"
            "2. Copied the fit loop into the patch",
            "Copied the trainer config to the example's own config folder",
        ),
        (  # the items of a list that tells the problem are no change
            "Fix authentication for URLs with a shared realm",
            "In #2976 I made some changes that led to regressions:\n\n"
            "- We added caching of credentials found on requests\n\n"
            "To resolve this, the cache is expanded to caching at two levels:\n\n- URL\n- Realm\n",
            "To resolve this, the cache is expanded to caching at two levels.",
        ),
        (  # "This returns ..." tells what the old code does
            "[megatron] fix: support hybrid models in router replay",
            "This returns the count of all layers, but replay instances exist only on MoE "
            "layers.\n\nKey changes:\n- Add is_moe_layer() helpers to tell MoE layers from "
            "dense ones\n",
            "Add is_moe_layer() helpers to tell MoE layers from dense ones",
        ),
        (  # generic words and how it is done add nothing to the title
            "Add tqdm progress bar to RayPPOTrainer to visualize training",
            "This PR enhances the RayPPOTrainer class by implementing a progress bar that "
            "visualizes the training process.",
            None,
        ),
        (  # tests far from its verb do not make it a change to the tests
            "Finish install-many with pypi 10k most dependents",
            "This PR combines three small changes to finish up the install-many testing.\n\n"
            "* Fix the wheel that has two Wheel-Version entries, as pip does\n",
            "This PR combines three small changes to finish up the install-many testing.",
        ),
    ],
    ids=[
        "pointer-then-change",
        "follow-up",
        "stopped",
        "introduced-by",
        "announced-list",
        "problem-list",
        "this-returns",
        "generic-words",
        "tests-far",
    ],
)
def test_change_sentences_of_the_labelled_misses(title: str, body: str, summary) -> None:
    assert read(body, title)["summary"] == summary


def test_the_repository_name_is_no_word_of_a_sentence_own() -> None:
    found = describe(
        "verl-project/verl",
        "Add LUFFY to awesome work list",
        "> Adding LUFFY to the README as a list of work that used veRL",
        seeds(),
    )
    assert found["summary"] is None


@pytest.mark.parametrize(
    ("title", "body", "summary"),
    [
        (  # "I think this makes": an opinion, the verb is not the subject's own
            "switch to jiff from chrono",
            "The lock file now writes an RFC 3339 timestamp for exclude-newer.\n\n"
            "I think this makes more sense than a UTC date, but one alternative is to drop it.",
            "The lock file now writes an RFC 3339 timestamp for exclude-newer.",
        ),
        (  # "don't" says what the change does, not what was wrong
            "Don't open lock files for writing",
            "When opening lock files, don't open them for writing to avoid needing the write "
            "permission in the future.",
            "When opening lock files, don't open them for writing to avoid needing the write "
            "permission in the future.",
        ),
        (  # the argument a change names is a word of its own
            "Warn on empty index directory",
            "Add a warning if the directory given by the --index argument is empty.",
            "Add a warning if the directory given by the --index argument is empty.",
        ),
        (  # "We no longer delete": the subject's verb after "no longer"
            "Recursively merge existing package directories on installation",
            "We no longer delete the target directory, since we uninstall packages first.",
            "We no longer delete the target directory, since we uninstall packages first.",
        ),
    ],
    ids=["opinion", "dont", "argument", "no-longer"],
)
def test_change_sentences_the_labelled_fixes_keep(title: str, body: str, summary) -> None:
    assert read(body, title)["summary"] == summary


def test_we_can_with_a_change_verb_says_the_change() -> None:
    found = read(
        "#11836 was caused by a missing credentials call.\n"
        "This call was always preceding a registry client builder.\n"
        "We can improve this situation by caching index credentials in the registry client "
        "builder.",
        "Make `cache_index_credentials()` misuse resistant",
    )
    assert found["summary"] == (
        "We can improve this situation by caching index credentials in the registry client builder."
    )


@pytest.mark.parametrize(
    ("title", "body", "summary"),
    [
        (  # what is right "instead of" what was written: the change
            "Update math_dataset.py to fix typo in the annotation",
            "The dataset name is MATH-lighteval instead of GSM8k",
            "The dataset name is MATH-lighteval instead of GSM8k",
        ),
        (  # an opinion
            "Add test to avoid invalidating virtualenv",
            "I think if we used symlinks (instead of hardlinks), this test would fail.",
            None,
        ),
        (  # what was found
            "Allow upgrading prerelease versions of the same minor Python version",
            "Turns out if the minor versions matched we returned false from is_upgrade_of "
            "instead of continuing to compare prerelease versions.",
            None,
        ),
    ],
    ids=["instead-of", "i-think", "turns-out"],
)
def test_instead_of_tells_the_change_an_opinion_does_not(title: str, body: str, summary) -> None:
    assert read(body, title)["summary"] == summary


def test_a_title_that_names_no_change_leaves_the_verb_to_the_sentence() -> None:
    # the title names the topic, the sentence what is done with it: one word of its own is enough
    assert (
        read(
            "This PR add [CollabLLM](https://example.com/collabllm) as a training recipe.",
            "[recipe] feat: CollabLLM integration for multiturn training",
        )["summary"]
        == "This PR add CollabLLM as a training recipe."
    )
    # a title that says the change: the same sentence says it again
    assert (
        read(
            "This PR adds CollabLLM as a training recipe.", "[recipe] feat: add CollabLLM training"
        )["summary"]
        is None
    )
    # "specifying" is the title's "Specify": no word of its own beside "support"
    assert (
        read(
            "Now we support specifying apply_chat_template_kwargs from config",
            "[trainer] feat: Specify apply_chat_template_kwargs from config",
        )["summary"]
        is None
    )


def test_i_m_is_no_word_of_substance_beside_a_reference() -> None:
    # "A refactor that I'm extracting from #14755": a pointer and little else
    found = read(
        "## Summary\n\nA refactor that I'm extracting from #14755.",
        "Move dependency group normalization into specification",
    )
    assert found["summary"] is None


def test_users_can_now_tells_the_change_when_the_first_sentence_is_the_title_again() -> None:
    found = read(
        "### What does this PR do?\n\nThis PR adds support for passing parameters to `ray.init`.\n"
        "Users can now dynamically configure settings such as `address`, `port`, `_temp_dir`, "
        "and more based on their specific needs.\n",
        "[ray] feat: add support for ray init kwargs",
    )
    assert found["summary"] == (
        "Users can now dynamically configure settings such as address, port, _temp_dir, and "
        "more based on their specific needs."
    )
    assert found["summary_source"] == "now"


def test_a_squash_of_small_follow_up_commits_keeps_its_first_subject() -> None:
    commits = (
        "* fix pypi package missing of megatron model and fix torchrun issue\n\n* lint\n\n"
        "* fix sft script\n\n* update version\n"
    )
    assert read(commits, "[misc] fix: resolve pypi missing directory")["summary"] == (
        "Fix pypi package missing of megatron model and fix torchrun issue"
    )
    # of many commits, a first subject that states no change is not told
    commits = "* Harmonisation of tests between main and PR\n\n* lint\n\n* fix\n\n* style\n"
    assert read(commits, "Skip the failing Online DPO test")["summary"] is None


def test_the_module_a_title_is_tagged_with_is_no_word_of_a_sentence_own() -> None:
    # "in FastCGI" under "fastcgi: fix ...": the commit's subject says the title again, its
    # body says what was done
    commits = (
        "* Implement HTTPoxy mitigation in FastCGI\nAdded HTTPoxy mitigation to prevent trusting "
        "the client-supplied Proxy header for HTTP_PROXY.\n\n* gofmt: format code\n"
    )
    assert read(commits, "fastcgi: fix HTTPoxy vulnerability")["summary"] == (
        "Added HTTPoxy mitigation to prevent trusting the client-supplied Proxy header for "
        "HTTP_PROXY."
    )


@pytest.mark.parametrize(
    "body",
    [
        "We don't show the causes in the error report, so we format it into one error.",
        "I don't think this should fail on any stderr output at all.",
    ],
)
def test_a_subject_s_don_t_is_no_change_verb(body: str) -> None:
    # "Don't open lock files" is a change; "We don't show the causes" is how things are
    found = read(
        f"{body}\n\nFormat the error chain into one message when removing registry entries.",
        "Better error reporting",
    )
    assert found["summary"] == (
        "Format the error chain into one message when removing registry entries."
    )


def test_the_items_that_finish_a_cut_lead_in_are_fragments() -> None:
    # "... by" and then the list: each item is the end of one sentence, not a sentence
    body = (
        "This makes it easier for us to add resolver scenarios by\n\n"
        "1. Rewriting the scenario package generation in Rust\n"
        "2. Serving scenario packages from memory in a wiremock index\n"
    )
    assert (
        read(body, "Vendor packse scenarios and serve them from an in-memory index")["summary"]
        is None
    )


def test_a_problem_that_concludes_with_the_change_says_it() -> None:
    # the problem, then ", so ... add them back": the conclusion is the change
    said = (
        "Without those changes in #3315, the error when we train the mixture modal dataset "
        "will remain unresolved, so it would be a good idea to add them back."
    )
    found = read(f"### What does this PR do?\n\n{said}", "[worker] fix: use the inputs helper")
    assert found["summary"] == said
    # a problem alone is no change
    assert read("The error remains unresolved when we train the mixed dataset.")["summary"] is None
