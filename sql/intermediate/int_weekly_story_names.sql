{{ config(materialized='ephemeral') }}

-- The series-by-tag and shared_name candidates of each reported week: the terms of
-- int_weekly_story_terms that are distinctive in it (see int_weekly_story_candidates). A step of
-- int_weekly_story_candidates, inlined where it is read.

-- words that are no name: type words, tags, area aliases, stop and release words, and (for
-- words of a title, not tags) verbs
with not_names as (
    select term, bool_or(for_tags) as for_tags
    from (
        select lower(alias) as term, true as for_tags from {{ ref('change_type_aliases') }}
        union all
        select lower(tag), true from {{ ref('scope_tags') }}
        union all
        select lower(alias), true from {{ ref('area_aliases') }}
        union all
        select lower(word), true from {{ ref('story_words') }} where role = 'stop'
        union all
        select lower(word), true from {{ ref('release_words') }}
        union all
        select lower(verb), false from {{ ref('title_verbs') }}
        union all
        select 'breaking', true
    ) w
    group by term
),

week_counts as (
    select
        repo,
        week_start,
        count(*) as n,
        sum(count(*)) over (
            partition by repo order by week_start
            range between to_weeks((select history_weeks from {{ ref('int_weekly_story_settings') }} settings)) preceding and interval 1 day preceding
        ) as history_n
    from {{ ref('int_weekly_story_prs') }} prs
    group by repo, week_start
),

-- the terms of a reported week that one of its PRs writes as a name (and no word of the seeds
-- above), then how many of its PRs carry them, written so or not
named_keys as (
    select distinct t.repo, t.week_start, t.term_kind, t.term
    from {{ ref('int_weekly_story_terms') }} t
    semi join {{ ref('int_weekly_story_weeks') }} reported using (repo, week_start)
    anti join not_names n on n.term = t.term and (n.for_tags or t.term_kind = 'name')
    where t.shape > 0
),

week_terms as (
    select
        repo, week_start, term_kind, term,
        count(distinct number) as k,
        max(shape) as shape,
        -- the spelling most PRs write as a name, the first in order on a tie
        first(spelling order by shape desc, spelling_prs desc, spelling asc) as spelling
    from (
        select *, count(*) over (partition by repo, week_start, term_kind, term, spelling) as spelling_prs
        from {{ ref('int_weekly_story_terms') }} terms
        semi join named_keys using (repo, week_start, term_kind, term)
    ) s
    group by repo, week_start, term_kind, term
),

-- the terms two PRs of a reported week share (a word only capitalised needs more PRs than one
-- written as a name); numbers, versions, sizes, `[i/N]` markers and the repository's name are
-- none
shared_terms as (
    select t.*
    from week_terms t
    where t.k >= 2 and (t.shape = 2 or (t.shape = 1 and t.k >= (select plain_name_min_prs from {{ ref('int_weekly_story_settings') }} settings)))
      and t.term <> ''
      and not regexp_matches(t.term, '^v?[\d\s/.x+-]*$|^\d+[a-z]{0,2}$|^(\d+|n)\s*/\s*(\d+|n)$|^part\s*\d')
      and regexp_replace(t.term, '[-_. ]', '', 'g') <> regexp_replace(lower(string_split(t.repo, '/')[2]), '[-_. ]', '', 'g')
),

-- the areas of the repository's PRs, which a name or a one-word tag must not be
area_weeks as (
    select distinct repo, week_start, regexp_replace(lower(area), '[-_. ]', '', 'g') as area_key
    from {{ ref('int_weekly_story_prs') }} prs, unnest(areas) as u(area)  -- noqa: AL01, AL05, LT01
),

area_terms as (
    select distinct s.repo, s.week_start, s.term_kind, s.term
    from shared_terms s
    join area_weeks a
        on a.repo = s.repo
        and a.area_key = regexp_replace(s.term, '[-_. ]', '', 'g')
        and a.week_start between s.week_start - to_weeks((select history_weeks from {{ ref('int_weekly_story_settings') }} settings)) and s.week_start
    where s.term_kind = 'name' or not contains(s.term, ' ')
),

shared_keys as (
    select distinct repo, term_kind, term from shared_terms
),

-- the PRs of every week that carry a shared term, however written
term_history as (
    select
        repo, week_start, term_kind, term,
        sum(count(distinct number)) over (
            partition by repo, term_kind, term order by week_start
            range between to_weeks((select history_weeks from {{ ref('int_weekly_story_settings') }} settings)) preceding and interval 1 day preceding
        ) as history_k
    from {{ ref('int_weekly_story_terms') }} terms
    semi join shared_keys using (repo, term_kind, term)
    group by repo, week_start, term_kind, term
),

distinctive as (
    select
        s.repo, s.week_start, s.term_kind, s.term, s.spelling
    from shared_terms s
    join term_history h using (repo, week_start, term_kind, term)
    join week_counts c using (repo, week_start)
    cross join {{ ref('int_weekly_story_settings') }} st
    anti join area_terms using (repo, week_start, term_kind, term)
    where coalesce(h.history_k, 0) <= st.max_share * coalesce(c.history_n, 0)
      and s.k * (coalesce(c.history_n, 0) + 1) >= st.min_lift * (coalesce(h.history_k, 0) + 1) * c.n
),

tag_candidates as (
    select
        t.repo, d.week_start as story_week, 'series' as kind, 3 as priority,
        'series:' || d.term as story_key, d.spelling as evidence, t.number, 'member' as role
    from distinctive d
    join {{ ref('int_weekly_story_terms') }} t
        on t.repo = d.repo
        and t.term_kind = d.term_kind
        and t.term = d.term
        and t.week_start between d.week_start - to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings)) and d.week_start
    where d.term_kind = 'tag'
),

-- a story's name also takes the PRs that name its platform otherwise, however written, and
-- is one story with them (seeds/story_names.csv: `npu ci` names Ascend)
name_aliases as (
    select distinct lower(a.word) as word, lower(b.word) as term, lower(a.name) as name
    from {{ ref('story_names') }} a
    join {{ ref('story_names') }} b on lower(b.name) = lower(a.name)
),

name_candidates as (
    select distinct
        t.repo, d.week_start as story_week, 'shared_name' as kind, 7 as priority,
        'shared_name:' || coalesce(n.name, d.term) as story_key, d.spelling as evidence, t.number,
        'member' as role
    from distinctive d
    left join (select distinct term, name from name_aliases) n on n.term = d.term
    join {{ ref('int_weekly_story_terms') }} t
        on t.repo = d.repo and t.week_start = d.week_start and t.term_kind = d.term_kind
        and (t.term = d.term or (t.term, d.term) in (select (word, term) from name_aliases))
    where d.term_kind = 'name'
)

select * from tag_candidates
union all
select * from name_candidates
