{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- The risk flags of each merged pull request (`risks`, one entry per flag): whether it is
-- raised, an English `reason`, and the evidence as data (`reason_key` names the sentence's form,
-- `evidence` holds its values as JSON: the word, the file, the box's text, counts, PR numbers),
-- from which the report words the reason in its own language. A flag whose data the source
-- lacks is NULL, not false: missing_tests and core_path need the changed files,
-- unresolved_threads the review threads, no_approval the reviews; dependency_change and
-- hardware_specific are NULL when files are unknown and the title and description say nothing.
-- Thresholds are in seeds/thresholds.csv, the words the flags read in seeds/flag_words.csv.

-- read once, reviews included, beside the classified row
with prs as not materialized (
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

-- read twice (core touches, file facts), as prs above
files as not materialized (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

descriptions as (
    select * from {{ ref('int_pull_request_descriptions') }}
    {{ in_run_weeks() }}
),

hotspots as (
    select * from {{ ref('int_hotspots') }}
    {{ in_run_weeks() }}
),

settings as (
    select
        max(value) filter (where name = 'missing_tests_min_lines') as missing_tests_min_lines,
        max(value) filter (where name = 'large_change_lines') as large_change_lines,
        max(value) filter (where name = 'large_change_files') as large_change_files,
        cast(max(value) filter (where name = 'hotspot_weeks') as integer) as hotspot_weeks,
        max(value) filter (where name = 'core_path_min_lines') as core_path_min_lines,
        max(value) filter (where name = 'large_change_min_added_share') as large_change_min_added_share,
        max(value) filter (where name = 'hardware_min_share') as hardware_min_share,
        max(value) filter (where name = 'dependency_lock_min_lines') as dependency_lock_min_lines
    from {{ ref('thresholds') }}
),

-- the words of seeds/flag_words.csv as lists, so the rules below look them up in one step
flag_words as (
    select
        list(word) filter (where flag = 'hardware_specific' and kind = 'change_verb') as change_verbs,
        list(word) filter (where flag = 'hardware_specific' and kind = 'opener') as openers,
        list(word) filter (where flag = 'hardware_specific' and kind = 'negation') as negations,
        list(word) filter (where flag = 'hardware_specific' and kind = 'general_platform') as platforms,
        list(word) filter (where flag = 'dependency_change' and kind = 'version_action') as version_actions,
        list(word) filter (where flag = 'dependency_change' and kind in ('version_action', 'action'))
            as dependency_actions,
        list(word) filter (where flag = 'dependency_change' and kind = 'noun') as dependency_nouns,
        list(word) filter (where flag = 'dependency_change' and kind = 'name_prefix') as name_prefixes,
        list(word) filter (where flag = 'dependency_change' and kind = 'own_version') as own_version_words,
        list(word) filter (where flag = 'dependency_change' and kind in ('version_action', 'own_version_verb'))
            as bump_verbs,
        list(word) filter (where flag = 'dependency_change' and kind = 'not_a_name') as not_names,
        list(word) filter (where flag = 'dependency_change' and kind in ('noun', 'name_follower')) as name_followers,
        (select list(lower(login_pattern)) from {{ ref('bot_authors') }}) as bot_patterns,
        (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'hardware') as hardware_words
    from {{ ref('flag_words') }}
),

-- hotspots count the hotspot_weeks weeks ending with the PR's: with fewer extracted (and the
-- history not complete) a file that is no hotspot here may be one, so core_path is unknown
hotspots_known as (
    select h.repo, h.week_start, h.history_complete or h.history_weeks >= s.hotspot_weeks - 1 as known
    from {{ ref('int_weekly_history') }} h
    cross join settings s
    {{ in_run_weeks(of='h') }}
),

-- core paths touched: this week's hotspots and the configured prefixes
core_touches as (
    select
        f.repo,
        f.number,
        -- by hotspot rank, then path (the struct's first fields): sorted after the aggregate
        list_sort(list(
            {'rank': coalesce(h.hotspot_rank, 1000000), 'path': f.path, 'lines': f.lines,
             'prs': h.pr_count, 'weeks': s.hotspot_weeks, 'prefix': f.configured_core_prefix}
        )) as core_files
    from files f
    cross join settings s
    left join hotspots h using (repo, week_start, path)
    where (h.path is not null or f.configured_core_prefix is not null) and not f.is_generated
        and f.lines >= s.core_path_min_lines
    group by f.repo, f.number
),

-- What the changed files say: code that tests would cover (not generated, not examples), docs
-- and examples only; the lines of the files that say something about the change's size (not
-- documentation, generated, data or vendored files) and how many of them were added; the
-- lines of the files for specific hardware (code, build or CI whose path names it, not tests,
-- run scripts, docs or examples) against all such lines; and the dependency files by kind
file_facts as (
    select
        repo,
        number,
        coalesce(sum(lines) filter (where is_code and not is_generated and not is_example and not is_script), 0)
            as tested_code_lines,
        bool_and(is_doc or is_example) as docs_or_examples_only,
        coalesce(sum(lines) filter (where not (is_doc or is_generated or is_data or is_vendored)), 0)
            as sized_lines,
        coalesce(sum(additions) filter (where not (is_doc or is_generated or is_data or is_vendored)), 0)
            as sized_additions,
        count(*) filter (where additions > 0 and not (is_doc or is_generated or is_data or is_vendored))
            as sized_files,
        coalesce(sum(lines) filter (where not (is_doc or is_example or is_test or is_script)), 0) as platform_lines,
        coalesce(sum(lines) filter (where hardware_word is not null and not (is_doc or is_example or is_test or is_script)), 0)
            as hardware_lines,
        arg_max(path, lines) filter (where hardware_word is not null and not (is_doc or is_example or is_test or is_script))
            as hardware_path,
        arg_max(hardware_word, lines) filter (where hardware_word is not null
            and not (is_doc or is_example or is_test or is_script)) as hardware_path_word,
        -- a dependency list always says the dependencies changed; a lock file when it changed
        -- by at least a package's entry (unless only fixtures' manifests changed beside it, see
        -- below); a manifest or container build, and the documentation's
        -- own dependencies (under docs/, or `requirements-docs.txt`), only with the title
        -- (sorted after, not in an ordered aggregate, which sorts every group's rows)
        list_sort(list(path) filter (where (dependency_kind = 'list'
                or (dependency_kind = 'lock' and lines >= s.dependency_lock_min_lines))
            and not regexp_matches(path, '(^|/)docs?/|[-_.]docs?([-_.][^/]*)?$'))) as dependency_files,
        -- the manifests and lists changed are all of what the tests exercise (a playground's
        -- package, a test's requirements): the lock file follows them, not the project
        coalesce(bool_and(is_fixture or is_test or is_example)
            filter (where dependency_kind in ('list', 'manifest')), false) as fixture_manifests_only,
        list_sort(list(path) filter (where is_dependency)) as manifest_files,
        list(path) filter (where dependency_kind = 'lock') as lock_files
    from files
    cross join settings s
    group by repo, number
),

-- files moved by a delete and an add (a source without rename detection): an added file whose
-- lines equal those of a file the same PR deleted; neither was written, so neither counts
-- towards the size
moves as (
    select repo, number, sum(lines * moved) as moved_additions, sum(moved) as moved_files
    from (
        select
            repo,
            number,
            case when change_type = 'ADDED' then additions else deletions end as lines,
            least(count(*) filter (where change_type = 'ADDED'), count(*) filter (where change_type = 'DELETED'))
                as moved
        from files
        where change_type in ('ADDED', 'DELETED') and additions + deletions > 0
            and (additions = 0 or deletions = 0) and not (is_doc or is_generated or is_data or is_vendored)
        group by all
    )
    where moved > 0
    group by repo, number
),

-- a dependency the title names: `Bump numpy to 2.1`, `Update Rust crate html-escape to v0.2.15`,
-- `Drop whoami dependency`, `pin torch-npu==2.7.1`: a verb of seeds/flag_words.csv, then a
-- name (past the words it skips); a weaker verb (`update`, `drop`, `support`) counts only with a
-- version, a constraint or a dependency noun in the title. `Bump dev version` is the project's
-- own version, never a dependency. Read only for PRs that changed a dependency file or whose
-- files are unknown.
title_dependencies as (
    select
        t.repo,
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
            select p.repo, p.number, p.title from prs p
            where not p.files_complete
                or (p.repo, p.number) in (select repo, number from files where is_dependency)
        ) p
        cross join flag_words w
        cross join lateral (
            select list_filter(
                regexp_split_to_array(replace(lower(p.title), '`', ''), '[\s,;:()\[\]"!?*]+'),
                lambda x: x <> '') as tokens
        ) k
    ) t0
    cross join flag_words v
    cross join lateral (
        select t0.*, t0.verb_at + list_position(list_transform(t0.tokens[t0.verb_at + 1:],
            lambda x: not list_contains(v.name_prefixes, x)), true) as name_at
    ) t
    where t.verb_at is not null or t.own_version
),

-- whether the description targets hardware: its change sentence (`summary`, what the PR
-- does, never the motivation or a report it answers; without one, the first sentence naming
-- hardware) names it as a whole word outside links, opens with a change verb (after `This PR`,
-- `We`, ...) that no issue reference follows, denies nothing and names no general platform
-- beside it (`for cuda and npu`). Read for the few PRs whose description names hardware (a
-- table scan of their own, not the descriptions' rows again: a CTE read twice is copied whole).
hardware_targets as (
    select
        t.repo,
        t.number,
        t.tokens is not null
            and list_filter(t.tokens, lambda x: list_contains(w.hardware_words, x))[1] is not null
            and not list_has_any(t.tokens, w.negations)
            and not list_has_any(t.tokens, w.platforms) as targets,
        list_filter(t.tokens, lambda x: list_contains(w.hardware_words, x))[1] as target_word,
        t.target_sentence
    from (
        -- the words of its first clause naming hardware (links out, `n't` as `not`, `torch_npu`
        -- as two words; a later clause after `;` says something else), read only when the
        -- sentence opens with a change verb that no issue reference follows
        select
            v.repo,
            v.number,
            v.target_sentence,
            case when list_contains(wv.change_verbs, regexp_extract(v.lead, '^([a-z]+)', 1))
                      and not regexp_matches(v.lead, '^[a-z]+\s*:?\s*([\w.-]+/[\w.-]+)?#\d') then
                coalesce(list_filter(list_transform(string_split_regex(v.sentence, ';\s+'),
                    lambda c: list_filter(string_split_regex(c, '[^a-z0-9]+'), lambda x: x <> '')),
                    lambda c: list_has_any(c, wv.hardware_words))[1], [])
            end as tokens
        from (
            -- the sentence, lower case, and what follows `This PR`, `We`, ... at its start
            select
                y.repo,
                y.number,
                y.target_sentence,
                y.sentence,
                substr(y.start, coalesce(length(list_filter(wo.openers,
                    lambda o: starts_with(y.start, o || ' '))[1]) + 2, 1)) as lead
            from (
                select
                    z.repo, z.number, z.target_sentence, z.sentence,
                    regexp_replace(z.sentence, '^[^a-z0-9#]+', '') as start
                from (
                    select
                        d.repo,
                        d.number,
                        coalesce(d.summary, d.hardware_sentence) as target_sentence,
                        replace(lower(case when contains(coalesce(d.summary, d.hardware_sentence), '://')
                            then regexp_replace(coalesce(d.summary, d.hardware_sentence), 'https?://\S+', ' ', 'g')
                            else coalesce(d.summary, d.hardware_sentence) end), 'n''t', ' not') as sentence
                    from {{ ref('int_pull_request_descriptions') }} d
                    where d.description_hardware_word is not null
                    {{ in_run_weeks(of='d', keyword='and') }}
                ) z
            ) y
            cross join flag_words wo
        ) v
        cross join flag_words wv
    ) t
    cross join flag_words w
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
        ff.hardware_path,
        ff.hardware_path_word,
        d.title_hardware_word,
        -- the description targets the hardware (hardware_targets), unless a bot wrote it
        -- (release notes, a changelog)
        coalesce(ht.targets, false)
            and not list_bool_or(list_transform(w.bot_patterns, lambda b: lower(p.author) like b))
            as description_targets_hardware,
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
    join prs p using (repo, number)
    join links l using (repo, number)
    join descriptions d using (repo, number)
    cross join settings s
    left join core_touches ct using (repo, number)
    cross join flag_words w
    left join file_facts ff using (repo, number)
    left join title_dependencies td using (repo, number)
    left join moves mv using (repo, number)
    left join hardware_targets ht using (repo, number)
    left join hotspots_known hk on hk.repo = c.repo and hk.week_start = c.week_start
),

keyed as (
    select
        f.*,

        -- unknown without the files, or with a cut list (GitHub's 3,000) that lists no test
        case
            when not f.files_complete and not coalesce(f.touches_tests, false) then null
            when not f.untested_code_change then false
            when f.test_box_state = 'unchecked' or f.no_test_sentence is not null then true
            when f.test_box_state = 'checked' then false
            else f.tested_code_lines >= f.missing_tests_min_lines
        end as missing_tests,
        case
            when f.test_box_state = 'unchecked' then 'box_unchecked'
            when f.no_test_sentence is not null then 'no_test_said'
            else 'no_test_file'
        end as missing_tests_reason_key,

        -- documentation, test and CI changes to a core file do not put what runs through it at
        -- risk; a change touching no core file is known to be none only where its week's
        -- hotspots are (else one of its files may be a hotspot the missing weeks would show)
        case
            when not f.files_known then null
            when f.change_type in ('docs', 'test', 'ci') then false
            when f.core_files is not null then true
            when not f.files_complete then null
            when f.hotspots_known then false
        end as core_path,
        case when f.core_files[1].prs is not null then 'hotspot' else 'configured' end as core_path_reason_key,

        case when f.threads_known then f.unresolved_count > 0 end as unresolved_threads,
        case when f.reviews_known then f.approvals = 0 end as no_approval,
        case when f.review_count = 0 then 'no_review' else 'no_approving_review' end as no_approval_reason_key,

        -- never the project's own version (`Bump dev version`, a release)
        case
            when f.own_version then false
            when len(f.dependency_files) > 0 then true
            when f.dependency_name is not null and not f.files_complete then true
            when f.files_complete then false
        end as dependency_change,
        case when len(f.dependency_files) > 0 then 'files' else 'title_word' end as dependency_change_reason_key,

        f.breaking_signal is not null or f.breaking_note is not null as breaking_change,
        coalesce(f.breaking_signal, 'description') as breaking_change_reason_key,

        -- hardware: the title names it, the files for it (code, build or CI whose path names it;
        -- not tests or run scripts) hold hardware_min_share of the lines outside docs, examples,
        -- tests and scripts, or the description targets it; never for documentation alone, nor
        -- when nothing but docs, examples, tests and run scripts changed (a recipe for the
        -- hardware, tests enabled on it: nothing another platform runs is at risk)
        case
            when f.docs_or_examples_only then false
            when f.files_complete and f.platform_lines = 0 then false
            when f.title_hardware_word is not null then true
            when f.files_complete and f.hardware_lines > 0
                 and f.hardware_lines >= f.hardware_min_share * f.platform_lines then true
            when f.description_targets_hardware then true
            when f.files_complete then false
        end as hardware_specific,
        case
            when f.title_hardware_word is not null then 'title'
            when f.files_complete and f.hardware_lines > 0
                 and f.hardware_lines >= f.hardware_min_share * f.platform_lines then 'path'
            else 'description'
        end as hardware_specific_reason_key,

        -- size: the lines and files that were written (not documentation, generated, data or
        -- vendored files, not moves; files that only lost lines do not count), never a removal: a
        -- change whose additions are under large_change_min_added_share of its lines
        case when f.docs_or_examples_only then false
        -- a cut file list is large when what it lists already is, else unknown
        when f.files_known then case
            when (f.sized_lines >= f.large_change_lines or f.sized_files >= f.large_change_files)
                 and f.sized_additions >= f.large_change_min_added_share * f.sized_lines then true
            when f.files_complete then false
        end
        else
            (f.changed_lines >= f.large_change_lines or f.changed_files >= f.large_change_files)
            and f.additions >= f.large_change_min_added_share * f.changed_lines
        end as large_change,
        case when f.files_known then f.sized_lines else f.changed_lines end as size_lines,
        case when f.files_known then f.sized_files else f.changed_files end as size_files,

        f.is_revert or len(f.reverted_by) > 0 as revert,
        case
            when f.is_revert and f.reverts_number is not null then 'reverts'
            when f.is_revert then 'reverts_unknown'
            else ''
        end || case
            when len(f.reverted_by) > 0 then (case when f.is_revert then '_and_' else '' end) || 'reverted_by'
            else ''
        end as revert_reason_key,

        len(f.followed_up_by) > 0 as quick_follow_up
    from flags f
),

-- `#1`, `#1 and #2`, `#1, #2 and #3`
reasons as (
    select
        k.*,
        -- the English reasons are joined with || (NULL when a part is, like printf) at a third
        -- of printf's cost; a reason and its evidence are made only for a raised flag (the marts
        -- read no other)
        case when k.missing_tests then case k.missing_tests_reason_key
            when 'box_unchecked' then 'the author left "' || k.test_box_text || '" unchecked'
            when 'no_test_said' then 'the author wrote "' || k.no_test_sentence || '"'
            else k.change_type || ' change of ' || k.tested_code_lines || ' lines of code with no test file changed'
        end end as missing_tests_reason,
        case when k.missing_tests then case k.missing_tests_reason_key
            when 'box_unchecked' then to_json({'box': k.test_box_text, 'type': k.change_type})
            when 'no_test_said' then to_json({'sentence': k.no_test_sentence, 'type': k.change_type})
            else to_json({'type': k.change_type, 'lines': k.tested_code_lines})
        end end as missing_tests_evidence,

        case when k.core_path then 'changes ' || k.core_files[1].path || case k.core_path_reason_key
            when 'hotspot' then ' (changed by ' || k.core_files[1].prs || ' PRs in ' || k.core_files[1].weeks || ' weeks)'
            else ' (configured core path ' || k.core_files[1].prefix || ')'
        end || case
            when len(k.core_files) = 2 then ' and 1 more core file'
            when len(k.core_files) > 2 then ' and ' || (len(k.core_files) - 1) || ' more core files'
            else ''
        end end as core_path_reason,
        case when k.core_path then to_json({
            'path': k.core_files[1].path, 'lines': k.core_files[1].lines,
            'prs': k.core_files[1].prs, 'weeks': k.core_files[1].weeks,
            'prefix': k.core_files[1].prefix, 'more': len(k.core_files) - 1
        }) end as core_path_evidence,

        'unresolved' as unresolved_threads_reason_key,
        case when k.unresolved_threads then k.unresolved_count || ' of ' || k.thread_count
            || case when k.thread_count = 1 then ' review thread' else ' review threads' end
            || ' unresolved at merge' end as unresolved_threads_reason,
        case when k.unresolved_threads then to_json({'unresolved': k.unresolved_count, 'threads': k.thread_count})
        end as unresolved_threads_evidence,

        case when k.no_approval then case k.no_approval_reason_key
            when 'no_review' then 'merged with no review'
            else 'merged with no approving review among ' || k.review_count
                || case when k.review_count = 1 then ' review' else ' reviews' end
        end end as no_approval_reason,
        case when k.no_approval then to_json({'reviews': k.review_count}) end as no_approval_evidence,

        case when k.dependency_change then case k.dependency_change_reason_key
            when 'files' then 'changes ' || array_to_string(k.dependency_files[1:3], ', ')
                || case when len(k.dependency_files) > 3 then ' and ' || (len(k.dependency_files) - 3) || ' more' else '' end
                || coalesce(' (the title names "' || k.dependency_name || '")', '')
            else 'the title says "' || k.dependency_verb || ' ' || k.dependency_name || '"'
        end end as dependency_change_reason,
        case when k.dependency_change then case k.dependency_change_reason_key
            when 'files' then to_json({'files': k.dependency_files[1:3], 'more': greatest(len(k.dependency_files) - 3, 0),
                'package': k.dependency_name})
            else to_json({'word': k.dependency_verb || ' ' || k.dependency_name, 'package': k.dependency_name})
        end end as dependency_change_evidence,

        case when k.breaking_change then case k.breaking_change_reason_key
            when 'title_tag' then 'the title is tagged [BREAKING]'
            when 'title_bang' then 'the title''s type carries `!`'
            when 'title_prefix' then 'the title starts with `breaking:`'
            when 'label' then 'labelled breaking'
            else 'the description says "' || k.breaking_note || '"'
        end end as breaking_change_reason,
        case when k.breaking_change then to_json({'note': k.breaking_note}) end as breaking_change_evidence,

        case when k.hardware_specific then case k.hardware_specific_reason_key
            when 'title' then 'the title names "' || k.title_hardware_word || '"'
            when 'path' then 'changes ' || k.hardware_path || ' ("' || k.hardware_path_word || '")'
            else 'the description names "' || k.target_word || '": "' || k.target_sentence || '"'
        end end as hardware_specific_reason,
        case when k.hardware_specific then case k.hardware_specific_reason_key
            when 'title' then to_json({'word': k.title_hardware_word})
            when 'path' then to_json({'word': k.hardware_path_word, 'path': k.hardware_path})
            else to_json({'word': k.target_word, 'sentence': k.target_sentence})
        end end as hardware_specific_evidence,

        'size' as large_change_reason_key,
        case when k.large_change then k.size_lines || ' lines across ' || k.size_files || case when k.size_files = 1 then ' file' else ' files' end
            end as large_change_reason,
        case when k.large_change then to_json({'lines': k.size_lines, 'files': k.size_files})
        end as large_change_evidence,

        case when k.revert then concat_ws('; ',
            case
                when k.is_revert and k.reverts_number is not null then 'reverts #' || k.reverts_number
                when k.is_revert then 'reverts an earlier change (its PR is not in the extracted history)'
            end,
            case when len(k.reverted_by) > 0
                then 'reverted by ' || array_to_string(list_transform(k.reverted_by, lambda n: '#' || n), ', ') end
        ) end as revert_reason,
        case when k.revert then to_json({'reverts': k.reverts_number, 'reverted_by': k.reverted_by})
        end as revert_evidence,

        'followed_up_by' as quick_follow_up_reason_key,
        case when k.quick_follow_up then 'followed up by ' || array_to_string(list_transform(
            list_zip(k.followed_up_by, k.follow_up_days),
            lambda z: '#' || z[1] || ' within ' || z[2] || case when z[2] = 1 then ' day' else ' days' end
        ), ', ') end as quick_follow_up_reason,
        case when k.quick_follow_up then to_json({'follow_ups': list_transform(
            list_zip(k.followed_up_by, k.follow_up_days), lambda z: {'number': z[1], 'days': z[2]})
        }) end as quick_follow_up_evidence
    from keyed k
),

-- Every risk flag, once: whether it is raised (NULL when the source lacks the data), its
-- reason in English, the reason's form and its evidence. Each flag is one entry here and one row
-- of seeds/risk_flags.csv; the marts take the list from these two places.
risks as (
    select
        repo,
        week_start,
        number,
        [
            {'risk_flag': 'missing_tests', 'raised': missing_tests, 'reason': missing_tests_reason,
              'reason_key': missing_tests_reason_key, 'evidence': missing_tests_evidence},
            {'risk_flag': 'core_path', 'raised': core_path, 'reason': core_path_reason,
              'reason_key': core_path_reason_key, 'evidence': core_path_evidence},
            {'risk_flag': 'unresolved_threads', 'raised': unresolved_threads, 'reason': unresolved_threads_reason,
              'reason_key': unresolved_threads_reason_key, 'evidence': unresolved_threads_evidence},
            {'risk_flag': 'no_approval', 'raised': no_approval, 'reason': no_approval_reason,
              'reason_key': no_approval_reason_key, 'evidence': no_approval_evidence},
            {'risk_flag': 'dependency_change', 'raised': dependency_change, 'reason': dependency_change_reason,
              'reason_key': dependency_change_reason_key, 'evidence': dependency_change_evidence},
            {'risk_flag': 'breaking_change', 'raised': breaking_change, 'reason': breaking_change_reason,
              'reason_key': breaking_change_reason_key, 'evidence': breaking_change_evidence},
            {'risk_flag': 'hardware_specific', 'raised': hardware_specific, 'reason': hardware_specific_reason,
              'reason_key': hardware_specific_reason_key, 'evidence': hardware_specific_evidence},
            {'risk_flag': 'large_change', 'raised': large_change, 'reason': large_change_reason,
              'reason_key': large_change_reason_key, 'evidence': large_change_evidence},
            {'risk_flag': 'revert', 'raised': revert, 'reason': revert_reason,
              'reason_key': revert_reason_key, 'evidence': revert_evidence},
            {'risk_flag': 'quick_follow_up', 'raised': quick_follow_up, 'reason': quick_follow_up_reason,
              'reason_key': quick_follow_up_reason_key, 'evidence': quick_follow_up_evidence}
        ] as risks,
        changed_lines,
        changed_files,
        review_count,
        reviewers,
        thread_count,
        reviews_known,
        threads_known,
        untested_code_change,
        reverts_number,
        reverted_by,
        followed_up_by,
        follows_up
    from reasons
)

select * from risks
