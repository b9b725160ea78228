{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- The risk flags of each merged pull request (`risks`, one entry per flag): whether it is
-- raised, an English `reason`, and the evidence as data (`reason_key` names the sentence's form,
-- `evidence` holds its values as JSON: the word, the file, the box's text, counts, PR numbers),
-- from which the report words the reason in its own language. A flag whose data the source
-- lacks is NULL, not false: missing_tests and core_path need the changed files,
-- unresolved_threads the review threads, no_approval the reviews; dependency_change and
-- hardware_specific are NULL when files are unknown and the title and description say nothing.
-- Thresholds are in seeds/thresholds.csv, the words the flags read in seeds/flag_words.csv.

-- Its steps, each inlined here (ephemeral): int_pull_request_flag_settings and _flag_words (the
-- seeds), int_pull_request_core_touches, _file_facts, _file_moves, _title_dependencies and
-- _hardware_targets (what the files, the title and the description say),
-- int_pull_request_flag_facts (the facts of each PR) and int_pull_request_flags_raised (whether
-- each flag is raised); this model words the reasons.

-- `#1`, `#1 and #2`, `#1, #2 and #3`
with reasons as (
    select
        k.*,
        -- the English reasons are joined with || (NULL when a part is, like printf) at a third
        -- of printf's cost; a reason and its evidence are made only for a raised flag (the marts
        -- read no other)
        case when k.missing_tests then case k.missing_tests_reason_key
            when 'box_unchecked' then 'the author left "' || k.test_box_text || '" unchecked'
            when 'no_test_said' then 'the author wrote "' || k.no_test_sentence || '"'
            else k.change_type || ' change of ' || k.tested_code_lines || ' lines of code with no test file changed'
        end end as missing_tests_reason,
        case when k.missing_tests then case k.missing_tests_reason_key
            when 'box_unchecked' then to_json({'box': k.test_box_text, 'type': k.change_type})
            when 'no_test_said' then to_json({'sentence': k.no_test_sentence, 'type': k.change_type})
            else to_json({'type': k.change_type, 'lines': k.tested_code_lines})
        end end as missing_tests_evidence,

        case when k.core_path then 'changes ' || k.core_files[1].path || case k.core_path_reason_key
            when 'hotspot' then ' (changed by ' || k.core_files[1].prs || ' PRs in ' || k.core_files[1].weeks || ' weeks)'
            else ' (configured core path ' || k.core_files[1].prefix || ')'
        end || case
            when len(k.core_files) = 2 then ' and 1 more core file'
            when len(k.core_files) > 2 then ' and ' || (len(k.core_files) - 1) || ' more core files'
            else ''
        end end as core_path_reason,
        case when k.core_path then to_json({
            'path': k.core_files[1].path, 'lines': k.core_files[1].lines,
            'prs': k.core_files[1].prs, 'weeks': k.core_files[1].weeks,
            'prefix': k.core_files[1].prefix, 'more': len(k.core_files) - 1
        }) end as core_path_evidence,

        'unresolved' as unresolved_threads_reason_key,
        case when k.unresolved_threads then k.unresolved_count || ' of ' || k.thread_count
            || case when k.thread_count = 1 then ' review thread' else ' review threads' end
            || ' unresolved at merge' end as unresolved_threads_reason,
        case when k.unresolved_threads then to_json({'unresolved': k.unresolved_count, 'threads': k.thread_count})
        end as unresolved_threads_evidence,

        case when k.no_approval then case k.no_approval_reason_key
            when 'no_review' then 'merged with no review'
            else 'merged with no approving review among ' || k.review_count
                || case when k.review_count = 1 then ' review' else ' reviews' end
        end end as no_approval_reason,
        case when k.no_approval then to_json({'reviews': k.review_count}) end as no_approval_evidence,

        case when k.dependency_change then case k.dependency_change_reason_key
            when 'files' then 'changes ' || array_to_string(k.dependency_files[1:3], ', ')
                || case when len(k.dependency_files) > 3 then ' and ' || (len(k.dependency_files) - 3) || ' more' else '' end
                || coalesce(' (the title names "' || k.dependency_name || '")', '')
            else 'the title says "' || k.dependency_verb || ' ' || k.dependency_name || '"'
        end end as dependency_change_reason,
        case when k.dependency_change then case k.dependency_change_reason_key
            when 'files' then to_json({'files': k.dependency_files[1:3], 'more': greatest(len(k.dependency_files) - 3, 0),
                'package': k.dependency_name})
            else to_json({'word': k.dependency_verb || ' ' || k.dependency_name, 'package': k.dependency_name})
        end end as dependency_change_evidence,

        case when k.breaking_change then case k.breaking_change_reason_key
            when 'title_tag' then 'the title is tagged [BREAKING]'
            when 'title_bang' then 'the title''s type carries `!`'
            when 'title_prefix' then 'the title starts with `breaking:`'
            when 'label' then 'labelled breaking'
            else 'the description says "' || k.breaking_note || '"'
        end end as breaking_change_reason,
        case when k.breaking_change then to_json({'note': k.breaking_note}) end as breaking_change_evidence,

        case when k.hardware_specific then case k.hardware_specific_reason_key
            when 'title' then 'the title names "' || k.title_hardware_word || '"'
            when 'path' then 'changes ' || k.hardware_path || ' ("' || k.hardware_path_word || '")'
            else 'the description names "' || k.target_word || '": "' || k.target_sentence || '"'
        end end as hardware_specific_reason,
        case when k.hardware_specific then case k.hardware_specific_reason_key
            when 'title' then to_json({'word': k.title_hardware_word})
            when 'path' then to_json({'word': k.hardware_path_word, 'path': k.hardware_path})
            else to_json({'word': k.target_word, 'sentence': k.target_sentence})
        end end as hardware_specific_evidence,

        'size' as large_change_reason_key,
        case when k.large_change then k.size_lines || ' lines across ' || k.size_files || case when k.size_files = 1 then ' file' else ' files' end
            end as large_change_reason,
        case when k.large_change then to_json({'lines': k.size_lines, 'files': k.size_files})
        end as large_change_evidence,

        case when k.revert then concat_ws('; ',
            case
                when k.is_revert and k.reverts_number is not null then 'reverts #' || k.reverts_number
                when k.is_revert then 'reverts an earlier change (its PR is not in the extracted history)'
            end,
            case when len(k.reverted_by) > 0
                then 'reverted by ' || array_to_string(list_transform(k.reverted_by, lambda n: '#' || n), ', ') end
        ) end as revert_reason,
        case when k.revert then to_json({'reverts': k.reverts_number, 'reverted_by': k.reverted_by})
        end as revert_evidence,

        'followed_up_by' as quick_follow_up_reason_key,
        case when k.quick_follow_up then 'followed up by ' || array_to_string(list_transform(
            list_zip(k.followed_up_by, k.follow_up_days),
            lambda z: '#' || z[1] || ' within ' || z[2] || case when z[2] = 1 then ' day' else ' days' end
        ), ', ') end as quick_follow_up_reason,
        case when k.quick_follow_up then to_json({'follow_ups': list_transform(
            list_zip(k.followed_up_by, k.follow_up_days), lambda z: {'number': z[1], 'days': z[2]})
        }) end as quick_follow_up_evidence
    from {{ ref('int_pull_request_flags_raised') }} k
),

-- Every risk flag, once: whether it is raised (NULL when the source lacks the data), its
-- reason in English, the reason's form and its evidence. Each flag is one entry here and one row
-- of seeds/risk_flags.csv; the marts take the list from these two places.
risks as (
    select
        repo,
        week_start,
        number,
        [
            {'risk_flag': 'missing_tests', 'raised': missing_tests, 'reason': missing_tests_reason,
              'reason_key': missing_tests_reason_key, 'evidence': missing_tests_evidence},
            {'risk_flag': 'core_path', 'raised': core_path, 'reason': core_path_reason,
              'reason_key': core_path_reason_key, 'evidence': core_path_evidence},
            {'risk_flag': 'unresolved_threads', 'raised': unresolved_threads, 'reason': unresolved_threads_reason,
              'reason_key': unresolved_threads_reason_key, 'evidence': unresolved_threads_evidence},
            {'risk_flag': 'no_approval', 'raised': no_approval, 'reason': no_approval_reason,
              'reason_key': no_approval_reason_key, 'evidence': no_approval_evidence},
            {'risk_flag': 'dependency_change', 'raised': dependency_change, 'reason': dependency_change_reason,
              'reason_key': dependency_change_reason_key, 'evidence': dependency_change_evidence},
            {'risk_flag': 'breaking_change', 'raised': breaking_change, 'reason': breaking_change_reason,
              'reason_key': breaking_change_reason_key, 'evidence': breaking_change_evidence},
            {'risk_flag': 'hardware_specific', 'raised': hardware_specific, 'reason': hardware_specific_reason,
              'reason_key': hardware_specific_reason_key, 'evidence': hardware_specific_evidence},
            {'risk_flag': 'large_change', 'raised': large_change, 'reason': large_change_reason,
              'reason_key': large_change_reason_key, 'evidence': large_change_evidence},
            {'risk_flag': 'revert', 'raised': revert, 'reason': revert_reason,
              'reason_key': revert_reason_key, 'evidence': revert_evidence},
            {'risk_flag': 'quick_follow_up', 'raised': quick_follow_up, 'reason': quick_follow_up_reason,
              'reason_key': quick_follow_up_reason_key, 'evidence': quick_follow_up_evidence}
        ] as risks,
        changed_lines,
        changed_files,
        review_count,
        reviewers,
        thread_count,
        reviews_known,
        threads_known,
        untested_code_change,
        reverts_number,
        reverted_by,
        followed_up_by,
        follows_up
    from reasons
)

select * from risks
