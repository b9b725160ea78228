{{ config(materialized='ephemeral') }}

-- The facts each risk flag of a merged PR is made of, one row per PR: its size, reviews and
-- links, what its files, title and description say (int_pull_request_core_touches,
-- _file_facts, _file_moves, _title_dependencies, _hardware_targets) and the thresholds. A step of int_pull_request_flags,
-- inlined where it is read.

-- read once, reviews included, beside the classified row
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks() }}
),

classified as (
    select * from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks() }}
),

links as (
    select * from {{ ref('int_pull_request_links') }}
    {{ in_run_weeks() }}
),

descriptions as (
    select * from {{ ref('int_pull_request_descriptions') }}
    {{ in_run_weeks() }}
),

-- hotspots count the hotspot_weeks weeks ending with the PR's: with fewer extracted (and the
-- history not complete) a file that is no hotspot here may be one, so core_path is unknown
hotspots_known as (
    select h.repo, h.week_start, h.history_complete or h.history_weeks >= s.hotspot_weeks - 1 as known
    from {{ ref('int_weekly_history') }} h
    cross join {{ ref('int_pull_request_flag_settings') }} s
    {{ in_run_weeks(of='h') }}
),

-- the flags and the facts each reason is made of
flags as (
    select
        c.repo,
        c.week_start,
        c.number,
        p.additions + p.deletions as changed_lines,
        p.additions,
        p.changed_files,
        ff.sized_lines - 2 * coalesce(mv.moved_additions, 0) as sized_lines,
        ff.sized_additions - coalesce(mv.moved_additions, 0) as sized_additions,
        ff.sized_files - coalesce(mv.moved_files, 0) as sized_files,
        ff.hardware_lines,
        ff.platform_lines,
        -- the reviews, read from the PR's row (one scan and no join more)
        len(p.reviews) as review_count,
        len(list_distinct(list_transform(p.reviews, lambda r: r.author))) as reviewers,
        len(p.review_threads) as thread_count,
        p.reviews is not null as reviews_known,
        p.review_threads is not null as threads_known,
        c.change_type,
        c.files_known,
        c.files_complete,
        c.touches_tests,
        ff.tested_code_lines,
        -- documentation only: every file is docs or examples, or the paths made it a docs change
        -- (never known of a cut file list)
        (c.files_complete and coalesce(ff.docs_or_examples_only, false))
            or (c.change_type = 'docs' and c.change_type_signal = 'paths') as docs_or_examples_only,
        -- a code change tests should cover: a feature, fix, performance change or refactor that
        -- changes code other than generated files and examples
        c.files_complete and c.change_type in ('feat', 'fix', 'perf', 'refactor')
            and coalesce(ff.tested_code_lines, 0) > 0 and not coalesce(c.touches_tests, false)
            as untested_code_change,
        d.test_box_state,
        d.test_box_text,
        d.no_test_sentence,
        ct.core_files,
        coalesce(hk.known, false) as hotspots_known,
        ff.hardware_file.path as hardware_path,
        ff.hardware_file.word as hardware_path_word,
        d.title_hardware_word,
        -- the description targets the hardware (hardware_targets), unless a bot wrote it
        -- (release notes, a changelog)
        -- (the author compared with the bots' patterns only then: a select list's `and`
        -- evaluates every operand)
        case when coalesce(ht.targets, false)
            then not list_bool_or(list_transform(w.bot_patterns, lambda b: lower(p.author) like b))
            else false end as description_targets_hardware,
        ht.target_word,
        ht.target_sentence,
        -- dependency lists and grown lock files; with a dependency the title names, every
        -- changed manifest and container build too
        case
            when td.named is not null then list_concat(coalesce(ff.dependency_files, []),
                list_filter(coalesce(ff.manifest_files, []),
                    lambda m: not list_contains(coalesce(ff.dependency_files, []), m)))
            -- a lock file beside the manifests of what the tests exercise alone follows them
            when ff.fixture_manifests_only then list_filter(coalesce(ff.dependency_files, []),
                lambda d: not list_contains(coalesce(ff.lock_files, []), d))
            else coalesce(ff.dependency_files, [])
        end as dependency_files,
        td.named as dependency_name,
        td.dependency_verb,
        coalesce(td.own_version, false) or c.change_type_signal = 'title_release' as own_version,
        c.breaking_signal,
        d.breaking_note,
        len(list_filter(p.review_threads, lambda t: not coalesce(t.is_resolved, false))) as unresolved_count,
        len(list_filter(p.reviews, lambda r: r.state = 'APPROVED')) as approvals,
        c.is_revert,
        l.reverts_number,
        l.reverted_by,
        l.followed_up_by,
        l.follow_up_days,
        l.follows_up,
        s.missing_tests_min_lines,
        s.large_change_lines,
        s.large_change_files,
        s.large_change_min_added_share,
        s.hardware_min_share
    from classified c
    join prs p using (repo, week_start, number)
    join links l using (repo, week_start, number)
    join descriptions d using (repo, week_start, number)
    cross join {{ ref('int_pull_request_flag_settings') }} s
    cross join {{ ref('int_pull_request_flag_words') }} w
    left join {{ ref('int_pull_request_core_touches') }} ct using (repo, week_start, number)
    left join {{ ref('int_pull_request_file_facts') }} ff using (repo, week_start, number)
    left join {{ ref('int_pull_request_file_moves') }} mv using (repo, week_start, number)
    left join {{ ref('int_pull_request_title_dependencies') }} td using (repo, week_start, number)
    left join {{ ref('int_pull_request_hardware_targets') }} ht using (repo, week_start, number)
    left join hotspots_known hk on hk.repo = c.repo and hk.week_start = c.week_start
)

select * from flags
