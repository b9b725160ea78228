{{ config(materialized='ephemeral') }}

-- The revert_reland candidates of each reported week: a reverted PR, its reverts and its
-- re-lands (see int_weekly_story_candidates). A step of
-- int_weekly_story_candidates, inlined where it is read.

-- --- reverts and re-lands -----------------------------------------------------------------
with reverts as (
    select
        r.repo,
        r.number,
        r.merged_at,
        -- a revert of a revert goes back to the change first reverted
        coalesce(o.reverts_number, r.reverts_number) as root
    from {{ ref('int_weekly_story_prs') }} r
    left join {{ ref('int_weekly_story_prs') }} o on o.repo = r.repo and o.number = r.reverts_number
    where r.reverts_number is not null
),

roots as (
    select
        v.repo, v.root, min(v.merged_at) as first_revert_at, list(v.number order by v.number) as revert_numbers,
        p.merged_at as root_merged_at, p.title as root_title,
        regexp_replace(lower(p.title), '[^a-z0-9]+', '', 'g') as root_key
    from reverts v
    join {{ ref('int_weekly_story_prs') }} p on p.repo = v.repo and p.number = v.root
    group by v.repo, v.root, p.merged_at, p.title
),

-- the numbers a re-land can name: the reverted PR and its reverts
chain_numbers as (
    select repo, root, root as named from roots
    union
    select repo, root, number from reverts semi join roots using (repo, root)
),

-- a PR's title with reland words and everything but letters and digits left out (worked out
-- once per distinct title)
keys_of_titles as (
    select title, regexp_replace(lower(title), '[^a-z0-9]+', '', 'g') as title_key
    from (select distinct title from {{ ref('int_weekly_story_prs') }} p) d
    union all
    select
        title,
        regexp_replace(array_to_string(list_filter(words, lambda x: not list_contains(reland_words, x)), ''),
            '[^a-z0-9]+', '', 'g')
    from (
        select
            d.title,
            -- split only a title holding a reland word as a substring (a case: a where's
            -- `and` would split every title)
            case when list_bool_or([contains(lower(d.title), x) for x in w.reland_words]) then
                regexp_split_to_array(lower(d.title), '[^a-z0-9-]+')
            end as words,
            w.reland_words
        from (select distinct title from {{ ref('int_weekly_story_prs') }} p) d
        cross join {{ ref('int_weekly_story_words') }} w
    ) t
    where list_has_any(words, reland_words)
),

title_keys as (
    select distinct p.repo, p.number, k.title_key
    from {{ ref('int_weekly_story_prs') }} p
    join keys_of_titles k on k.title is not distinct from p.title
    where k.title_key in (select root_key from roots)  -- only a reverted PR's key is looked up
),

relands as (
    select distinct c.repo, c.root, c.number
    from (
        select n.repo, n.root, x.number
        from chain_numbers n
        join (select repo, number, unnest(referenced_numbers) as named from {{ ref('int_weekly_story_prs') }} prs) x using (repo, named)
        union
        select t.repo, t.root, k.number
        from roots t
        join title_keys k on k.repo = t.repo and k.title_key = t.root_key
    ) c
    join roots o using (repo, root)
    join {{ ref('int_weekly_story_prs') }} q on q.repo = c.repo and q.number = c.number
    where q.merged_at > o.first_revert_at and q.reverts_number is null and q.number <> o.root
),

chain_members as (
    select repo, root, root as number, 'reverted' as role from roots
    union all
    select repo, root, number, 'revert' from reverts semi join roots using (repo, root)
    union all
    select repo, root, number, 'reland' from relands
),

revert_candidates as (
    select
        m.repo, w.week_start as story_week, 'revert_reland' as kind, 2 as priority,
        'revert_reland:' || m.root as story_key, o.root_title as evidence, m.number, m.role
    from chain_members m
    join roots o using (repo, root)
    join {{ ref('int_weekly_story_prs') }} p using (repo, number)
    -- a week with a revert or a re-land of the chain tells it, with its PRs up to that week
    join (
        select distinct c.repo, c.root, q.week_start
        from chain_members c
        join {{ ref('int_weekly_story_prs') }} q using (repo, number)
        semi join {{ ref('int_weekly_story_weeks') }} reported using (repo, week_start)
        where c.role <> 'reverted'
    ) w
        on w.repo = m.repo
        and w.root = m.root
        and p.week_start between w.week_start - to_weeks((select history_weeks from {{ ref('int_weekly_story_settings') }} settings)) and w.week_start
)

select * from revert_candidates
