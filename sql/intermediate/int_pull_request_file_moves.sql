{{ config(materialized='ephemeral') }}

-- The moves of each PR that moved files, for the size of its large_change flag. A step of
-- int_pull_request_flags, inlined where it is read.
with files as (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

-- files moved by a delete and an add (a source without rename detection): an added file whose
-- lines equal those of a file the same PR deleted; neither was written, so neither counts
-- towards the size
moves as (
    select repo, week_start, number, sum(lines * moved) as moved_additions, sum(moved) as moved_files
    from (
        select
            repo,
            week_start,
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
    group by repo, week_start, number
)

select * from moves
