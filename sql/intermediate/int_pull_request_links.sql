{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- How merged pull requests refer to each other: which earlier PR a revert undoes, which later
-- PRs reverted it, and which later fixes followed it up within `follow_up_days` (a later `fix`
-- whose title or description names `#N`). Reads `lookback_weeks` (project.yml) of history before
-- the run and everything extracted after it, so a range build sees its own follow-ups and reverts.
-- lookback: a one-week run also rebuilds the `lookback_weeks` weeks before it,
-- so the earlier PR that this week's revert or fix names gets its `reverted_by`/follow-up too;
-- int_pull_request_flags, fct_pull_requests and fct_weekly_risks carry it on the same way.
with settings as (
    select
        max(value) filter (where name = 'follow_up_days') as follow_up_days
    from {{ ref('thresholds') }}
),

candidates as (
    select
        repo, week_start, number, merged_at, lower(trim(title)) as normalized_title, change_type,
        is_revert, revert_number_hint, revert_commit, revert_quoted_title, referenced_numbers
    from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks(back=var('lookback_weeks'), weeks='since') }}
),

commits as (
    select s.repo, s.number, s.merge_commit
    from {{ ref('stg_pull_requests') }} s
    where s.merge_commit is not null
    {{ in_run_weeks(back=var('lookback_weeks'), weeks='since', of='s', keyword='and') }}
),

reverts as (
    select * from candidates where is_revert
),

-- a revert without a number: the latest earlier PR whose merge commit or title it names
by_commit as (
    select r.repo, r.number, max(c.number) as reverted
    from reverts r
    join commits c
        on c.repo = r.repo
        and left(c.merge_commit, 7) = left(r.revert_commit, 7)
        and starts_with(c.merge_commit, r.revert_commit)
    where r.revert_number_hint is null
    group by r.repo, r.number
),

by_title as (
    select r.repo, r.number, max(c.number) as reverted
    from reverts r
    join candidates c
        on c.repo = r.repo
        and c.normalized_title = r.revert_quoted_title
        and c.merged_at < r.merged_at
    where r.revert_number_hint is null
    group by r.repo, r.number
),

resolved as (
    select
        r.repo,
        r.number,
        case
            when r.revert_number_hint <> r.number then r.revert_number_hint
            else coalesce(bc.reverted, bt.reverted)
        end as reverts_number
    from reverts r
    left join by_commit bc using (repo, number)
    left join by_title bt using (repo, number)
),

reverted_by as (
    select repo, reverts_number as number, list(number order by number) as reverted_by
    from resolved
    where reverts_number is not null
    group by repo, reverts_number
),

-- a later fix that names an earlier PR merged at most follow_up_days before it
follow_ups as (
    select
        e.repo,
        e.number as earlier,
        l.number as later,
        greatest(1, cast(ceil(date_diff('second', e.merged_at, l.merged_at) / 86400.0) as integer)) as days
    from (
        select repo, number, merged_at, unnest(referenced_numbers) as referenced
        from candidates
        where change_type = 'fix' and not is_revert
    ) l
    join candidates e
        on e.repo = l.repo
        and e.number = l.referenced
        and e.number <> l.number
        and l.merged_at > e.merged_at
    cross join settings s
    where l.merged_at <= e.merged_at + to_days(cast(s.follow_up_days as integer))
),

followed_up as (
    select
        repo,
        earlier as number,
        list(later order by later) as followed_up_by,
        list(days order by later) as follow_up_days
    from follow_ups
    group by repo, earlier
),

follows as (
    select repo, later as number, list(earlier order by earlier) as follows_up
    from follow_ups
    group by repo, later
),

final as (
    select
        c.repo,
        c.week_start,
        c.number,
        c.is_revert,
        rs.reverts_number,
        coalesce(rb.reverted_by, []) as reverted_by,
        coalesce(fu.followed_up_by, []) as followed_up_by,
        coalesce(fu.follow_up_days, []) as follow_up_days,
        coalesce(fo.follows_up, []) as follows_up
    from candidates c
    left join resolved rs using (repo, number)
    left join reverted_by rb using (repo, number)
    left join followed_up fu using (repo, number)
    left join follows fo using (repo, number)
    {{ in_run_weeks(repo=false, of='c') }}
)

select * from final
