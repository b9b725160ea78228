{{ config(materialized='ephemeral') }}

-- What each PR's description says of its areas. A step of
-- int_pull_requests_classified, inlined where it is read.
select
    m.* replace (  -- noqa: AM04
        -- a weak first verb (add, update, remove, ...) gives way to a word of the title that
        -- names docs, tests, CI, performance or a fix: `Add tests for ...`, `Improve read
        -- performance`
        case
            when m.web_edit_title then null
            when m.verb_type in ('feat', 'chore', 'refactor')
                 and m.word_type in ('docs', 'test', 'ci', 'perf', 'fix')
                then m.word_type
            else m.verb_type
        end as verb_type
    ),
    -- a weak title type (or gitmoji) gives way to what its verb says: `feat: optimize ...`
    -- is performance work, `chore: fix ...` a fix, `feat: update X to 1.2` a version bump,
    -- `chore: add ... tests` tests
    case
        when coalesce(m.title_type, m.emoji_type) in ('feat', 'refactor', 'chore')
             and m.first_verb_type = 'perf' then 'perf'
        when coalesce(m.title_type, m.emoji_type) = 'chore' and m.first_verb_type = 'fix' then 'fix'
        when coalesce(m.title_type, m.emoji_type) in ('feat', 'refactor') and m.first_verb_type = 'chore'
             and regexp_matches(m.title, '(^|[\s=<>(v])\d+(\.\d+)+') then 'chore'
        when m.title_type = 'chore' and m.word_type = 'test' then 'test'
    end as verb_over_type,
    case when coalesce(m.label_type, m.title_type, m.emoji_type, m.tag_type, m.bot_type,
                       m.verb_type, m.word_type) is null
              and not m.is_revert_title and not m.is_release_title then
        coalesce(
            case when contains(m.body, '[x]') or contains(m.body, '[X]') then
                list_filter(list_transform(
                    regexp_extract_all(m.body, '(?m)^\s*[-*]\s*\[[xX]\]\s*([A-Za-z][A-Za-z /-]*[A-Za-z])', 1),
                    lambda x: v.type_of_alias[lower(trim(x))]), lambda x: x is not null)[1]
            end,
            case when (contains(m.body, '#') or contains(m.body, '/issues/'))
                      and regexp_matches(m.body, '(?i)\b(fix(es|ed)?|resolve[sd]?)\s*:?\s+(https://github\.com/[\w.-]+/[\w.-]+/issues/\d+|([\w.-]+/[\w.-]+)?#\d+)')
                then 'fix'
            end,
            v.type_of_verb[lower(regexp_extract(m.body,
                '(?m)^[ \t]*(?:[-*+][ \t]+)?(?:\[[^\]\n]*\][ \t]*)?(?:(?i:this (?:pr|pull request|change|commit|patch))[ \t]+)?([A-Za-z]+)', 1))]
        )
    end as description_type,
    -- a description that says the change fixes a bug (`This resolves the issue with ...`,
    -- `This PR addresses this regression`; not `Also fixes a bug`, a side fix), where only a
    -- weak title verb (add, update, remove, ...) would say otherwise
    -- (the description read only where the title's verb is weak: a select list's `and`
    -- evaluates every operand)
    case when (m.verb_type in ('feat', 'chore', 'refactor') and m.title_type is null and m.emoji_type is null) is false
        then false
        else m.verb_type in ('feat', 'chore', 'refactor') and m.title_type is null and m.emoji_type is null
            and regexp_matches(m.body,
            '(?i)\b(this|it|which)(\s+(pr|pull request|change|patch|commit))?\s+(will\s+)?(fix(es)?|resolves?|solves?|address(es)?)\s+(the|an?|this|that)\s+(\w+\s+){0,2}(issue|bug|problem|crash|error|regression|race|deadlock|hang)\b')
    end as description_fixes
from {{ ref('int_pull_request_modules') }} m
cross join {{ ref('int_pull_request_class_vocabulary') }} v
