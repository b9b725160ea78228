{{ config(materialized='incremental') }}

-- The week's stories: related PRs told once (int_weekly_story_candidates finds them: a
-- release, a revert and its re-land, a series, a file removed and restored, a shared name).
-- A PR belongs to at most one story of a week: the candidates are ranked (by `priority`, then
-- more PRs, then the more important lead, then story_id) and each PR joins the first that
-- holds it; a candidate left with fewer than 2 PRs, or with none of the week, is dropped, and
-- the PRs it held choose once more among the candidates no PR chose first. A story may take earlier PRs
-- (`earlier_numbers`: a series begun before, the reverted PR) but is led by the week's most
-- important PR (a release by its release PR); it weighs the average importance of its PRs of
-- the week plus story_size_weight per doubling of their number, and never less than its lead alone
-- (at most 10). A story is key (`is_key`, the body tells it as one story before the key PRs told
-- alone) when it is a release, holds a key PR of the week, or holds story_key_min_prs PRs of the
-- week or more whose titles write its name as it does (a week's theme: a platform's docs, CI and
-- images, `Ascend` in three titles; not `total` in two and `TOTAL` in one); `key_reason` says
-- which.
-- Titles are composed from the facts, in English and Chinese, the names as written.
with settings as (
    select
        max(value) filter (where name = 'story_size_weight') as size_weight,
        max(value) filter (where name = 'story_key_min_prs') as key_min_prs
    from {{ ref('thresholds') }}
),

-- the week's PRs: key or not (fct_pull_requests.is_key, the one rule) and their titles
week_prs as (
    select repo, number, is_key, title from {{ ref('fct_pull_requests') }}
    {{ in_run_weeks() }}
),

candidates as (
    select * from {{ ref('int_weekly_story_candidates') }}
    {{ in_run_weeks() }}
),

scored as (
    select *, merged_week = week_start as this_week from candidates
),

-- a candidate that could be a story at all: 2 PRs or more, one of the week
viable as (
    select repo, week_start, story_key
    from scored
    group by repo, week_start, story_key
    having count(*) >= 2 and bool_or(this_week)
),

ranked as (
    select
        repo,
        week_start,
        story_key,
        row_number() over (
            partition by repo, week_start
            order by min(priority), count(*) desc, max(importance) filter (where this_week) desc nulls last,
                story_key
        ) as candidate_rank
    from scored
    semi join viable using (repo, week_start, story_key)
    group by repo, week_start, story_key
),

choices as (
    select s.*, r.candidate_rank
    from scored s
    join ranked r using (repo, week_start, story_key)
),

first_choice as (
    select repo, week_start, number, arg_min(story_key, candidate_rank) as story_key
    from choices
    group by repo, week_start, number
),

first_kept as (
    select f.repo, f.week_start, f.story_key
    from first_choice f
    join choices c using (repo, week_start, number, story_key)
    group by f.repo, f.week_start, f.story_key
    having count(*) >= 2 and bool_or(c.this_week)
),

first_members as (
    select * from first_choice semi join first_kept using (repo, week_start, story_key)
),

-- the PRs of no kept story choose again, among the candidates none of them chose first
second_choice as (
    select repo, week_start, number, arg_min(story_key, candidate_rank) as story_key
    from choices
    anti join first_members using (repo, week_start, number)
    anti join (select distinct repo, week_start, story_key from first_choice) f
        using (repo, week_start, story_key)
    group by repo, week_start, number
),

second_kept as (
    select f.repo, f.week_start, f.story_key
    from second_choice f
    join choices c using (repo, week_start, number, story_key)
    group by f.repo, f.week_start, f.story_key
    having count(*) >= 2 and bool_or(c.this_week)
),

members as (
    select
        c.*,
        coalesce(k.is_key, false) as is_key_pr,
        -- its title writes the story's name as the story does (`Ascend`, not `ascend` or `total`)
        coalesce(contains(k.title, c.evidence), false) as names_it
    from choices c
    left join week_prs k using (repo, number)
    semi join (
        select * from first_members
        union all
        select * from second_choice semi join second_kept using (repo, week_start, story_key)
    ) m using (repo, week_start, number, story_key)
),

stories as (
    select
        repo,
        week_start,
        story_key as story_id,
        min(kind) as kind,
        min(evidence) as evidence,
        list(number order by merged_at, number) as numbers,
        coalesce(list(number order by merged_at, number) filter (where not this_week), [])
            as earlier_numbers,
        first(number order by this_week desc, role = 'release' desc, importance desc, number asc) as lead_number,
        -- an exact decimal sum, then one division: the same figure whatever order the threads add in
        cast(sum(cast(importance as decimal(18, 1))) filter (where this_week) as double)
        / count(*) filter (where this_week) as week_importance,
        count(*) filter (where this_week) as week_prs,
        max(importance) filter (where this_week) as lead_importance,
        coalesce(bool_or(is_key_pr) filter (where this_week), false) as holds_key_pr,
        count(*) filter (where this_week and names_it) as naming_prs,
        first(number order by merged_at, number) as first_number,
        list(number order by merged_at, number) filter (where role = 'revert') as revert_numbers,
        list(number order by merged_at, number) filter (where role = 'reland') as reland_numbers,
        min(number) filter (where role = 'reverted') as reverted_number,
        bool_or(role = 'changed') as changed_again
    from members
    group by repo, week_start, story_key
),

-- a list of PR numbers as `#1, #2` (en) or `#1、#2` (zh)
worded as (
    select
        *,
        array_to_string(list_transform(revert_numbers, lambda n: '#' || n), ', ') as reverts_en,
        array_to_string(list_transform(revert_numbers, lambda n: '#' || n), '、') as reverts_zh,
        array_to_string(list_transform(coalesce(reland_numbers, []), lambda n: '#' || n), ', ') as relands_en,
        array_to_string(list_transform(coalesce(reland_numbers, []), lambda n: '#' || n), '、') as relands_zh,
        regexp_extract(evidence, '[^/]+$') as file_name,
        string_split(evidence, ', ') as versions,
        case when week_prs = 1 then '1 PR' else week_prs || ' PRs' end as week_prs_en,
        len(numbers) - 1 as follow_ups
    from stories
),

final as (
    select
        w.repo,
        w.week_start,
        w.story_id,
        w.kind,
        case w.kind
            when 'release' then
                case len(w.versions)
                    when 1 then 'Release ' || w.versions[1]
                    when 2 then 'Releases ' || w.versions[1] || ' and ' || w.versions[2]
                    else len(w.versions) || ' releases (' || w.versions[1] || ', …, ' || w.versions[-1] || ')'
                end
            when 'revert_reland' then
                '#' || w.reverted_number || ' reverted (' || w.reverts_en || ')'
                || case when w.relands_en <> '' then ' and re-landed (' || w.relands_en || ')' else '' end
            when 'file_churn' then
                w.file_name || ' removed and restored' || case when w.changed_again then ', then changed again' else '' end
            when 'shared_name' then w.evidence || ': ' || w.week_prs_en
            else case
                when starts_with(w.story_id, 'series:#') then
                    '#' || w.first_number || ' and '
                    || case when w.follow_ups = 1 then '1 linked PR' else w.follow_ups || ' linked PRs' end
                when starts_with(w.evidence, '@') then
                    'A series by ' || w.evidence || ' (' || w.week_prs_en || ' this week)'
                else 'The ' || w.evidence || ' series (' || w.week_prs_en || ' this week)'
            end
        end as title_en,
        case w.kind
            when 'release' then
                case len(w.versions)
                    when 1 then '发布 ' || w.versions[1]
                    when 2 then '发布 ' || w.versions[1] || ' 与 ' || w.versions[2]
                    else '发布 ' || len(w.versions) || ' 个版本（' || w.versions[1] || '、…、' || w.versions[-1] || '）'
                end
            when 'revert_reland' then
                '#' || w.reverted_number || ' 被回退（' || w.reverts_zh || '）'
                || case when w.relands_zh <> '' then '后重新合并（' || w.relands_zh || '）' else '' end
            when 'file_churn' then
                w.file_name || ' 被删除后又恢复' || case when w.changed_again then '，随后再次修改' else '' end
            when 'shared_name' then w.evidence || ' 相关的 ' || w.week_prs || ' 个 PR'
            else case
                when starts_with(w.story_id, 'series:#') then
                    '#' || w.first_number || ' 及 ' || w.follow_ups || ' 个相关 PR'
                when starts_with(w.evidence, '@') then
                    w.evidence || ' 的系列 PR（本周 ' || w.week_prs || ' 个）'
                else w.evidence || ' 系列（本周 ' || w.week_prs || ' 个 PR）'
            end
        end as title_zh,
        w.numbers,
        w.earlier_numbers,
        w.lead_number,
        cast(least(10, greatest(w.lead_importance, round(w.week_importance + s.size_weight * log2(w.week_prs), 1)))
            as double) as importance,
        w.evidence,
        w.kind = 'release' or w.holds_key_pr or w.naming_prs >= s.key_min_prs as is_key,
        case
            when w.kind = 'release' then 'release'
            when w.holds_key_pr then 'key_pr'
            when w.naming_prs >= s.key_min_prs then 'size'
        end as key_reason
    from worded w
    cross join settings s
)

select * from final
