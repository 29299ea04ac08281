//! Amazon Simple Queue Service: durable standard and FIFO queues.
//!
//! State lives in the `sqs` store of each account and region, written with strict
//! durability: a message is on disk before `SendMessage` answers. Tables:
//!
//! - `queues`: [`queue::QueueRecord`] by queue name;
//! - `messages`: [`message::StoredMessage`] by queue name, a zero byte and the message's
//!   sequence number (big-endian), so a queue's messages scan in sending order;
//! - `dedup`: FIFO deduplication ids by queue name, a zero byte, (group id, zero byte,) id.
//!
//! Nothing runs in the background. Visibility timeouts and delays are deadlines compared
//! with the service's clock when a receive looks at a message; retention is enforced the same
//! way. Long polling waits on the queue's arrival signal and a deadline on the scheduler
//! ([`wait`]), as does a rate-limited message move task between batches.
//!
//! Queue URLs name the region as AWS's do and reach the host the client addressed
//! (`http://HOST/queue/REGION/ACCOUNT/NAME`, or `http://sqs.REGION.HOST/ACCOUNT/NAME` when
//! the host names the region); requests are accepted with any URL whose last two path
//! segments are the account and the queue name, or with the bare name of one of the
//! caller's queues.

mod batch;
mod delivery;
mod error;
mod message;
mod moves;
mod ops;
mod permissions;
mod queue;
mod queue_ref;
mod receive;
mod send;
mod service;
mod store;
mod wait;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_sqs::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::SqsService;

/// Builds SQS when the binary serves it; its queues are the
/// [`MessageSink`](stratus_core::service::MessageSink) other services
/// deliver into and the [`QueueSource`](stratus_core::service::QueueSource) Lambda's event
/// source mappings read.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sqs = SqsService::new(env.storage.clone(), env.scheduler.clone());
    Registration {
        handlers: vec![Arc::new(Handler(sqs.clone()))],
        provides: Providers {
            messages: Some(Arc::new(sqs.clone())),
            queues: Some(Arc::new(sqs.clone())),
            resource_policies: vec![Arc::new(sqs)],
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_sqs::operations! {
    SqsService;
    create_queue => ops::queues::create_queue,
    get_queue_url => ops::queues::get_queue_url,
    list_queues => ops::queues::list_queues,
    delete_queue => ops::queues::delete_queue,
    get_queue_attributes => ops::queues::get_queue_attributes,
    set_queue_attributes => ops::queues::set_queue_attributes,
    purge_queue => ops::queues::purge_queue,
    list_dead_letter_source_queues => ops::queues::list_dead_letter_source_queues,
    send_message => ops::messages::send_message,
    send_message_batch => ops::messages::send_message_batch,
    receive_message => ops::messages::receive_message,
    delete_message => ops::messages::delete_message,
    delete_message_batch => ops::messages::delete_message_batch,
    change_message_visibility => ops::messages::change_message_visibility,
    change_message_visibility_batch => ops::messages::change_message_visibility_batch,
    tag_queue => ops::tags::tag_queue,
    untag_queue => ops::tags::untag_queue,
    list_queue_tags => ops::tags::list_queue_tags,
    add_permission => ops::permissions::add_permission,
    remove_permission => ops::permissions::remove_permission,
    start_message_move_task => ops::move_tasks::start_message_move_task,
    cancel_message_move_task => ops::move_tasks::cancel_message_move_task,
    list_message_move_tasks => ops::move_tasks::list_message_move_tasks,
}
