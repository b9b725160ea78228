{{ config(materialized='ephemeral') }}

-- Whether the description of a PR targets hardware: its change sentence (`summary`, what the PR
-- does, never the motivation or a report it answers; without one, the first sentence naming
-- hardware) names it as a whole word outside links, opens with a change verb (after `This PR`,
-- `We`, ...) that no issue reference follows, denies nothing and names no general platform
-- beside it (`for cuda and npu`). Read for the few PRs whose description names hardware (a
-- table scan of their own, not the descriptions' rows again: a CTE read twice is copied whole).
-- A step of int_pull_request_flags, inlined where it is read.

with hardware_targets as (
    select
        t.repo,
        t.week_start,
        t.number,
        t.tokens is not null
            and list_filter(t.tokens, lambda x: list_contains(w.hardware_words, x))[1] is not null
            and not list_has_any(t.tokens, w.negations)
            and not list_has_any(t.tokens, w.platforms) as targets,
        list_filter(t.tokens, lambda x: list_contains(w.hardware_words, x))[1] as target_word,
        t.target_sentence
    from (
        -- the words of its first clause naming hardware (links out, `n't` as `not`, `torch_npu`
        -- as two words; a later clause after `;` says something else), read only when the
        -- sentence opens with a change verb that no issue reference follows
        select
            v.repo,
            v.week_start,
            v.number,
            v.target_sentence,
            case when list_contains(wv.change_verbs, regexp_extract(v.lead, '^([a-z]+)', 1))
                      and not regexp_matches(v.lead, '^[a-z]+\s*:?\s*([\w.-]+/[\w.-]+)?#\d') then
                coalesce(list_filter(list_transform(string_split_regex(v.sentence, ';\s+'),
                    lambda c: list_filter(string_split_regex(c, '[^a-z0-9]+'), lambda x: x <> '')),
                    lambda c: list_has_any(c, wv.hardware_words))[1], [])
            end as tokens
        from (
            -- the sentence, lower case, and what follows `This PR`, `We`, ... at its start
            select
                y.repo,
                y.week_start,
                y.number,
                y.target_sentence,
                y.sentence,
                substr(y.start, coalesce(length(list_filter(wo.openers,
                    lambda o: starts_with(y.start, o || ' '))[1]) + 2, 1)) as lead
            from (
                select
                    z.repo, z.week_start, z.number, z.target_sentence, z.sentence,
                    regexp_replace(z.sentence, '^[^a-z0-9#]+', '') as start
                from (
                    select
                        d.repo,
                        d.week_start,
                        d.number,
                        coalesce(d.summary, d.hardware_sentence) as target_sentence,
                        replace(lower(case when contains(coalesce(d.summary, d.hardware_sentence), '://')
                            then regexp_replace(coalesce(d.summary, d.hardware_sentence), 'https?://\S+', ' ', 'g')
                            else coalesce(d.summary, d.hardware_sentence) end), 'n''t', ' not') as sentence
                    from {{ ref('int_pull_request_descriptions') }} d
                    where d.description_hardware_word is not null
                    {{ in_run_weeks(of='d', keyword='and') }}
                ) z
            ) y
            cross join {{ ref('int_pull_request_flag_words') }} wo
        ) v
        cross join {{ ref('int_pull_request_flag_words') }} wv
    ) t
    cross join {{ ref('int_pull_request_flag_words') }} w
)

select * from hardware_targets
