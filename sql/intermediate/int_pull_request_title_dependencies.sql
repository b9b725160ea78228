{{ config(materialized='ephemeral') }}

-- The dependency a PR's title names: `Bump numpy to 2.1`, `Update Rust crate html-escape to v0.2.15`,
-- `Drop whoami dependency`, `pin torch-npu==2.7.1`: a verb of seeds/flag_words.csv, then a
-- name (past the words it skips); a weaker verb (`update`, `drop`, `support`) counts only with a
-- version, a constraint or a dependency noun in the title. `Bump dev version` is the project's
-- own version, never a dependency. Read only for PRs that changed a dependency file or whose
-- files are unknown. A step of int_pull_request_flags, inlined where it is read.

with title_dependencies as (
    select
        t.repo,
        t.week_start,
        t.number,
        t.own_version,
        -- the name: the first word past the verb and the words skipped; after a weaker verb it
        -- carries a constraint (`torch-npu==2.7.1`) or a version, `to`, `from`, `version` or a
        -- dependency noun follows it
        case when not t.own_version and t.verb_at is not null
                  and (list_contains(v.version_actions, t.tokens[t.verb_at]) or t.versioned
                       or list_has_any(t.tokens, v.dependency_nouns))
                  and regexp_matches(t.tokens[t.name_at], '^[a-z@][a-z0-9_.@/+-]*[a-z0-9]([=<>~!]=?.*)?$')
                  and not list_contains(v.not_names, t.tokens[t.name_at])
                  and not list_contains(v.dependency_actions, t.tokens[t.name_at])
                  and (list_contains(v.version_actions, t.tokens[t.verb_at])
                       or regexp_matches(t.tokens[t.name_at], '[=<>~]')
                       or list_contains(v.name_followers, coalesce(t.tokens[t.name_at + 1], ''))
                       or regexp_matches(coalesce(t.tokens[t.name_at + 1], ''), '^v?\d+(\.\d+)+'))
            then regexp_replace(t.tokens[t.name_at], '[=<>~!].*$', '')
        end as named,
        t.tokens[t.verb_at] as dependency_verb
    from (
        select
            p.repo,
            p.week_start,
            p.number,
            k.tokens,
            list_position(list_transform(k.tokens, lambda x: list_contains(w.dependency_actions, x)), true)
                as verb_at,
            regexp_matches(p.title, '\d\.\d|\bv\d|[=<>~]=|[<>]\s*\d') as versioned,
            -- `bump [dev|main branch|the ...] version`, not `bump the version of X`
            coalesce(list_bool_or(list_transform(k.tokens, lambda x, i:  -- noqa: LT01
                list_contains(w.bump_verbs, x)
                and coalesce(k.tokens[i + list_position(list_transform(k.tokens[i + 1:],
                    lambda y: not list_contains(w.own_version_words, y)), true)] in ('version', 'versions'), false)
                and coalesce(k.tokens[i + 1 + list_position(list_transform(k.tokens[i + 1:],
                    lambda y: not list_contains(w.own_version_words, y)), true)], '') <> 'of'
                or (x = 'version' and coalesce(k.tokens[i + 1], '') in ('bump', 'bumps')))), false) as own_version
        -- the titles alone (not the PRs' rows again, nor the file facts: a CTE read twice is
        -- copied whole)
        from (
            select p.repo, p.week_start, p.number, p.title
            from {{ ref('stg_pull_requests') }} p
            where (not p.files_complete or (p.repo, p.week_start, p.number) in (
                select repo, week_start, number from {{ ref('int_pull_request_files') }}
                where is_dependency {{ in_run_weeks(keyword='and') }}
            ))
            {{ in_run_weeks(of='p', keyword='and') }}
        ) p
        cross join {{ ref('int_pull_request_flag_words') }} w
        cross join lateral (
            select list_filter(
                regexp_split_to_array(replace(lower(p.title), '`', ''), '[\s,;:()\[\]"!?*]+'),
                lambda x: x <> '') as tokens
        ) k
    ) t0
    cross join {{ ref('int_pull_request_flag_words') }} v
    cross join lateral (
        select t0.*, t0.verb_at + list_position(list_transform(t0.tokens[t0.verb_at + 1:],
            lambda x: not list_contains(v.name_prefixes, x)), true) as name_at
    ) t
    where t.verb_at is not null or t.own_version
)

select * from title_dependencies
