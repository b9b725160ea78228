{{ config(materialized='ephemeral') }}

-- The authors of a repository's week, for int_weekly_repo_digest: `authors`, the week's
-- authors but bots (seeds/bot_authors.csv) and `ghost`; `newcomers`, those whose first merged
-- PR in the repository is this week's (int_author_first_weeks), with their PRs. One row per
-- repository and week with a human author. A step of int_weekly_repo_digest, inlined there.

-- the week's PRs, each once (a PR twice in a week would multiply itself in the joins below)
with week_rows as not materialized (
    select repo, week_start, number, author, title, url, merged_at from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks() }}
),

{{ each_pr_once('week_prs', 'week_rows') }},

bots as (
    select lower(login_pattern) as pattern from {{ ref('bot_authors') }}
),

humans as (
    select p.repo, p.week_start, p.number, p.author, p.title, p.url, p.merged_at
    from week_prs p
    -- each distinct author compared with the bots' patterns once, not each PR
    semi join (
        select a.author
        from (select distinct author from week_prs) a
        where a.author is not null and a.author <> 'ghost'
          and not exists (select 1 from bots b where lower(a.author) like b.pattern)
    ) h using (author)
),

author_lists as (
    select repo, week_start, list(distinct author order by author) as authors
    from humans
    group by all
),

newcomer_lists as (
    select repo, week_start, list({'author': author, 'prs': prs} order by author) as newcomers
    from (
        select
            h.repo,
            h.week_start,
            h.author,
            list({'number': h.number, 'title': h.title, 'url': h.url} order by h.merged_at, h.number) as prs
        from humans h
        join {{ ref('int_author_first_weeks') }} f using (repo, author)
        where f.first_week = h.week_start
        group by all
    ) n
    group by all
),

-- the authors' list and, beside it, the newcomers' (a newcomer is one of the week's authors)
authors as (
    select a.repo, a.week_start, a.authors, n.newcomers
    from author_lists a
    left join newcomer_lists n using (repo, week_start)
)

select * from authors
