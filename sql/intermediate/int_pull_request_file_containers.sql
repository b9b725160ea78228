{{ config(materialized='ephemeral') }}

-- The folders that hold most of a repository's code changes, over everything extracted for
-- it (not only the run's weeks), with two subfolders or more: containers by the data
-- (`container_min_share` of its changes), one row per repository that has any. A step of
-- int_pull_request_files, inlined where it is read.
with layout_words as (
    select * from {{ ref('int_pull_request_file_words') }}
),

history as (
    select repo, path, count(*) as changes
    from {{ ref('stg_pull_request_files') }}
    where not regexp_matches(path, '(^|/)(tests?|testing|docs?|examples?|docs?[_-](src|sources?|examples?)|\.github)/|\.(md|rst|txt|ipynb)$')
    {{ in_run_weeks(weeks=none, keyword='and') }}
    group by repo, path
),

folder_changes as (
    select
        h.repo,
        array_to_string(s.segments[1:i], '/') as folder,
        case when i + 1 < len(s.segments) then s.segments[i + 1] end as subfolder,
        h.changes
    from history h,
        lateral (select string_split(lower(h.path), '/') as segments) s,
        lateral (select unnest(range(1, len(s.segments))) as i) r
),

data_containers as (
    select f.repo, list(f.folder) as folders
    from (
        select repo, folder, sum(changes) as changes, count(distinct subfolder) as subfolders
        from folder_changes
        group by repo, folder
    ) f
    join (select repo, sum(changes) as changes from history group by repo) t using (repo)
    cross join layout_words w
    where f.subfolders >= 2 and f.changes >= w.container_min_share * t.changes
    group by f.repo
)

select * from data_containers
