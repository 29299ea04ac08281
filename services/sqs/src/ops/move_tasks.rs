//! Message move tasks: moving a dead-letter queue's messages back to their sources or to
//! another queue, at a rate, in the background.

use std::sync::Arc;
use std::time::Duration;

use stratus_core::paging::PageSize;
use stratus_core::{id, RequestContext};
use stratus_gen_sqs::*;
use stratus_storage::Direction;

use crate::error::SqsError;
use crate::moves;
use crate::queue_ref::QueueRef;
use crate::service::{Shared, SqsService};
use crate::store::{dead_letter_sources, load_queue, QUEUES};

/// ListMessageMoveTasks' `MaxResults`.
const MAX_MOVE_TASKS: PageSize = PageSize {
    min: 1,
    max: 10,
    default: 1,
};

pub(crate) async fn start_message_move_task(
    sqs: &SqsService,
    _ctx: &RequestContext,
    input: StartMessageMoveTaskRequest,
) -> Result<StartMessageMoveTaskResult, SqsError> {
    let source = QueueRef::from_arn(&input.source_arn).ok_or_else(|| not_found("SourceArn"))?;
    if let Some(rate) = input.max_number_of_messages_per_second {
        if !moves::RATE_RANGE.contains(&rate) {
            return Err(SqsError::invalid_parameter(
                "Value for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: You must enter a number that's between 1 and 500.",
            ));
        }
    }
    let destination = match &input.destination_arn {
        Some(arn) => Some(
            QueueRef::from_arn(arn)
                .filter(|d| d.account == source.account && d.region == source.region)
                .ok_or_else(|| not_found("DestinationArn"))?,
        ),
        None => None,
    };
    let src = source.clone();
    let now = sqs.now_ms();
    let task = sqs
        .write(&source, move |tx| {
            load_queue(tx, &src.name).map_err(|_| not_found("SourceArn"))?;
            if dead_letter_sources(tx, &src.arn())?.is_empty() {
                return Err(SqsError::invalid_parameter(
                    "Source queue must be configured as a Dead Letter Queue.",
                ));
            }
            if let Some(d) = &destination {
                load_queue(tx, &d.name).map_err(|_| not_found("DestinationArn"))?;
            }
            let existing = moves::tasks(tx, &src.name, Direction::Forward, None)?;
            if existing.iter().any(|t| t.status == moves::Status::Running) {
                return Err(SqsError::invalid_parameter(
                    "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
                ));
            }
            let task = moves::MoveTask {
                id: id::uuid(),
                source_arn: input.source_arn,
                destination_arn: input.destination_arn,
                rate: input.max_number_of_messages_per_second,
                status: moves::Status::Running,
                moved: 0,
                to_move: moves::visible_count(tx, &src.name, now)?,
                failure_reason: None,
                started_ms: now,
            };
            moves::MOVE_TASKS.put(tx, task.key(&src.name), &task)?;
            Ok(task)
        })
        .await?;
    run_move(&sqs.shared, &source, &task);
    Ok(StartMessageMoveTaskResult {
        task_handle: Some(task.handle()),
    })
}

pub(crate) async fn cancel_message_move_task(
    sqs: &SqsService,
    _ctx: &RequestContext,
    input: CancelMessageMoveTaskRequest,
) -> Result<CancelMessageMoveTaskResult, SqsError> {
    let (task_id, source_arn) = moves::parse_handle(&input.task_handle)
        .ok_or_else(|| SqsError::invalid_parameter("Value for parameter TaskHandle is invalid."))?;
    let source = QueueRef::from_arn(&source_arn).ok_or_else(|| not_found("SourceArn"))?;
    let name = source.name.clone();
    let moved = sqs
        .write(&source, move |tx| {
            load_queue(tx, &name).map_err(|_| not_found("SourceArn"))?;
            let tasks = moves::tasks(tx, &name, Direction::Forward, None)?;
            let mut task = tasks
                .into_iter()
                .find(|t| t.id == task_id)
                .ok_or_else(|| SqsError::ResourceNotFoundException("Task does not exist.".into()))?;
            if task.status != moves::Status::Running {
                return Err(SqsError::invalid_parameter("Only a running task can be cancelled."));
            }
            task.status = moves::Status::Cancelled;
            moves::MOVE_TASKS.put(tx, task.key(&name), &task)?;
            Ok(task.moved)
        })
        .await?;
    Ok(CancelMessageMoveTaskResult {
        approximate_number_of_messages_moved: moved,
    })
}

pub(crate) async fn list_message_move_tasks(
    sqs: &SqsService,
    _ctx: &RequestContext,
    input: ListMessageMoveTasksRequest,
) -> Result<ListMessageMoveTasksResult, SqsError> {
    let source = QueueRef::from_arn(&input.source_arn).ok_or_else(|| not_found("SourceArn"))?;
    let limit = MAX_MOVE_TASKS.check(input.max_results).map_err(|e| {
        SqsError::invalid_value(
            "MaxResults",
            e.asked,
            "You must enter a number that's between 1 and 10.",
        )
    })?;
    let store = sqs.reader(&source)?;
    if store
        .get(QUEUES.name(), source.name.as_bytes())
        .map_err(SqsError::from)?
        .is_none()
    {
        return Err(not_found("SourceArn"));
    }
    let tasks = moves::tasks(&store, &source.name, Direction::Backward, Some(limit))?;
    for task in tasks.iter().filter(|t| t.status == moves::Status::Running) {
        run_move(&sqs.shared, &source, task);
    }
    Ok(ListMessageMoveTasksResult {
        results: Some(tasks.iter().map(moves::MoveTask::to_entry).collect()),
    })
}

/// Runs message move `task` of queue `source` to its end, unless a runner already does.
pub(crate) fn run_move(shared: &Arc<Shared>, source: &QueueRef, task: &moves::MoveTask) {
    {
        let mut running = shared.running_moves.lock().unwrap_or_else(|e| e.into_inner());
        if !running.insert(task.id.clone()) {
            return;
        }
    }
    let shared = shared.clone();
    let source = source.clone();
    let key = task.key(&source.name);
    let id = task.id.clone();
    tokio::spawn(async move {
        loop {
            let (name, k, now) = (source.name.clone(), key.clone(), shared.now_ms());
            let stepped = shared
                .write(source.namespace(), move |tx| moves::step(tx, &name, &k, now))
                .await;
            // On a failed step the task stays running, and is resumed when next listed.
            let Ok((task, destinations)) = stepped else { break };
            for d in destinations {
                shared.arrivals.signal(&source.sibling(&d).signal_key());
            }
            if task.status != moves::Status::Running {
                break;
            }
            if task.rate.is_some() {
                let scheduler = &shared.scheduler;
                scheduler
                    .sleep_until(scheduler.clock().moment_after(Duration::from_secs(1)))
                    .await;
            }
        }
        shared
            .running_moves
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    });
}

pub(crate) fn not_found(parameter: &str) -> SqsError {
    SqsError::ResourceNotFoundException(format!(
        "The resource that you specified for the {parameter} parameter doesn't exist."
    ))
}
