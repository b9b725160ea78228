{{ config(materialized='incremental', lookback_weeks=26) }}

-- The ten risk flags of each merged pull request, one BOOLEAN and one reason per flag.
-- A flag whose data the source lacks is NULL, not false: missing_tests and core_path need the
-- changed files, unresolved_threads the review threads, no_approval the reviews;
-- dependency_change and hardware_specific are NULL when files are unknown and the title says
-- nothing. Thresholds are in seeds/thresholds.csv.

-- read twice (review counts, the flags' sizes): scanning the table again costs less than the
-- copy of all its rows, review lists included, that DuckDB keeps for a CTE used twice
with prs as not materialized (
    select * from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

classified as (
    select * from {{ ref('int_pull_requests_classified') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

links as (
    select * from {{ ref('int_pull_request_links') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

files as (
    select * from {{ ref('int_pull_request_files') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

hotspots as (
    select * from {{ ref('int_hotspots') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

settings as (
    select
        max(value) filter (where name = 'missing_tests_min_lines') as missing_tests_min_lines,
        max(value) filter (where name = 'large_change_lines') as large_change_lines,
        max(value) filter (where name = 'large_change_files') as large_change_files,
        cast(max(value) filter (where name = 'hotspot_weeks') as integer) as hotspot_weeks
    from {{ ref('thresholds') }}
),

-- hotspots count the hotspot_weeks weeks ending with the PR's: with fewer extracted (and the
-- history not complete) a file that is no hotspot here may be one, so core_path is unknown
hotspots_known as (
    select h.repo, h.week_start, h.history_complete or h.history_weeks >= s.hotspot_weeks - 1 as known
    from {{ ref('int_weekly_history') }} h
    cross join settings s
    {% if is_incremental() %}
    where h.repo = {{ var('repo') }}
      and h.week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

-- core paths touched: this week's hotspots and the configured prefixes
core_touches as (
    select
        f.repo,
        f.number,
        list(
            case
                when h.path is not null then printf('%s (changed by %d PRs in %d weeks)', f.path, h.pr_count, s.hotspot_weeks)
                else printf('%s (configured core path %s)', f.path, f.configured_core_prefix)
            end
            order by coalesce(h.hotspot_rank, 1000000), f.path
        ) as core_descriptions
    from files f
    cross join settings s
    left join hotspots h using (repo, week_start, path)
    where h.path is not null or f.configured_core_prefix is not null
    group by f.repo, f.number
),

reviews as (
    select
        repo,
        number,
        reviews is not null as reviews_known,
        review_threads is not null as threads_known,
        len(reviews) as review_count,
        len(list_filter(reviews, lambda r: r.state = 'APPROVED')) as approvals,
        len(list_distinct(list_transform(reviews, lambda r: r.author))) as reviewers,
        len(review_threads) as thread_count,
        len(list_filter(review_threads, lambda t: not coalesce(t.is_resolved, false))) as unresolved_threads
    from prs
),

-- `#1`, `#1 and #2`, `#1, #2 and #3`
numbered as (
    select
        l.*,
        list_transform(l.reverted_by, lambda n: '#' || n) as reverted_by_refs,
        list_transform(
            list_zip(l.followed_up_by, l.follow_up_days),
            lambda z: printf('#%d within %d %s', z[1], z[2], case when z[2] = 1 then 'day' else 'days' end)
        ) as follow_up_refs
    from links l
),

flags as (
    select
        c.repo,
        c.week_start,
        c.number,
        p.additions + p.deletions as changed_lines,
        p.changed_files,
        r.review_count,
        r.reviewers,
        r.thread_count,
        r.reviews_known,
        r.threads_known,

        case
            when not c.files_known then null
            else c.change_type in ('feat', 'fix', 'perf', 'refactor')
                and c.code_lines >= s.missing_tests_min_lines and not c.touches_tests
        end as missing_tests,
        -- the reasons every row gets are joined with || (NULL when a part is, like printf) at a
        -- third of printf's cost
        c.change_type || ' change of ' || c.code_lines || ' lines of code with no test file changed'
            as missing_tests_reason,

        case
            when ct.core_descriptions is not null then true
            when c.files_known and hk.known then false
        end as core_path,
        'changes ' || ct.core_descriptions[1]
            || case when len(ct.core_descriptions) > 1
                then printf(' and %d more core files', len(ct.core_descriptions) - 1) else '' end
            as core_path_reason,

        case when r.threads_known then r.unresolved_threads > 0 end as unresolved_threads,
        r.unresolved_threads || ' of ' || r.thread_count || ' review threads unresolved at merge'
            as unresolved_threads_reason,

        case when r.reviews_known then r.approvals = 0 end as no_approval,
        case
            when r.review_count = 0 then 'merged with no review'
            else printf('merged with no approving review among %d reviews', r.review_count)
        end as no_approval_reason,

        case
            when len(c.dependency_paths) > 0 or c.dependency_title_word is not null then true
            when c.files_known then false
        end as dependency_change,
        case
            when len(c.dependency_paths) > 0 then 'changes ' || array_to_string(c.dependency_paths[1:3], ', ')
                || case when len(c.dependency_paths) > 3
                    then printf(' and %d more', len(c.dependency_paths) - 3) else '' end
            else 'the title says "' || c.dependency_title_word || '"'
        end as dependency_change_reason,

        c.is_breaking as breaking_change,
        c.breaking_reason as breaking_change_reason,

        case
            when c.hardware_title_word is not null or c.hardware_path is not null then true
            when c.files_known then false
        end as hardware_specific,
        case
            when c.hardware_title_word is not null then 'the title names "' || c.hardware_title_word || '"'
            else 'changes ' || c.hardware_path || ' ("' || c.hardware_path_word || '")'
        end as hardware_specific_reason,

        p.additions + p.deletions >= s.large_change_lines or p.changed_files >= s.large_change_files
            as large_change,
        (p.additions + p.deletions) || ' lines across ' || p.changed_files || ' files'
            as large_change_reason,

        c.is_revert or len(l.reverted_by) > 0 as revert,
        l.reverts_number,
        l.reverted_by,
        concat_ws('; ',
            case
                when c.is_revert and l.reverts_number is not null then printf('reverts #%d', l.reverts_number)
                when c.is_revert then 'reverts an earlier change (its PR is not in the extracted history)'
            end,
            case when len(l.reverted_by) > 0
                then 'reverted by ' || array_to_string(l.reverted_by_refs, ', ') end
        ) as revert_reason,

        len(l.followed_up_by) > 0 as quick_follow_up,
        l.followed_up_by,
        l.follows_up,
        'followed up by ' || array_to_string(l.follow_up_refs, ', ') as quick_follow_up_reason
    from classified c
    join prs p using (repo, number)
    join reviews r using (repo, number)
    join numbered l using (repo, number)
    cross join settings s
    left join core_touches ct using (repo, number)
    left join hotspots_known hk on hk.repo = c.repo and hk.week_start = c.week_start
)

select * from flags
