{{ config(materialized='ephemeral') }}

-- Whether each risk flag of a merged PR is raised (NULL when the source lacks the data it
-- needs) and the form of its reason (`*_reason_key`), from the facts of
-- int_pull_request_flag_facts. A step of int_pull_request_flags, inlined where it is read.
with raised as (
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
    from {{ ref('int_pull_request_flag_facts') }} f
)

-- the facts (int_pull_request_flag_facts names them) and the flags beside them
select * from raised  -- noqa: AM04
