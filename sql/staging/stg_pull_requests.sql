{{ config(materialized='incremental') }}

-- One row per merged pull request, renamed and cleaned; nothing derived yet.
-- An incremental table, not a view: the warehouse's copy of the lake, so a build reads each
-- Parquet file once (and a one-week build only that week's files), and every later model and
-- the report read DuckDB's own storage instead of opening thousands of small files again.
-- Lists the source did not hold (labels, reviews, ...) stay NULL: unknown, not empty.
-- `repo` and `week_start` come from the file's folder (`repo=<owner>__<name>/week=<date>`, the
-- same values as in the file), so a filter on them reads only the matching files.
with source as (
    select * from {{ source('github', 'pull_requests') }}
),

renamed as (
    select
        {{ repo_of_slug('repo') }} as repo,
        week as week_start,
        number,
        coalesce(title, '') as title,
        coalesce(body, '') as body,
        url,
        coalesce(author, 'ghost') as author,
        created_at,
        merged_at,
        merged_by,
        coalesce(additions, 0) as additions,
        coalesce(deletions, 0) as deletions,
        coalesce(changed_files, len(files), 0) as changed_files,
        base_ref,
        merge_commit,
        comments_count,
        labels,
        reviews,
        review_threads,
        files,
        files is not null as files_known,
        -- GitHub lists at most 3,000 files: a list shorter than the PR's count of changed files
        -- is cut, and what depends on the whole list is unknown
        files is not null and len(files) >= coalesce(changed_files, 0) as files_complete,
        len(files) as listed_files
    from source
)

select * from renamed
{{ in_run_weeks() }}
