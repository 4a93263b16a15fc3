// Compiled by `cargo xtask clients` with `tsc --strict` beside the client openapi-typescript
// generates from docs/openapi.json (`./api`): what a TypeScript client writes every day, which
// stops compiling when the document describes it badly (issue 18, item 5).

import type { components, operations, webhooks } from "./api";

type Schemas = components["schemas"];
type Payload<Event extends keyof webhooks> =
    NonNullable<webhooks[Event]["post"]>["requestBody"]["content"]["application/json"];

// Free-form objects take any keys and values (they were `Record<string, never>`).
const meta: NonNullable<Schemas["UpdateFeedbackParams"]["meta"]> = {
    plan: "pro",
    seats: 3,
    tags: ["a", "b"],
    nested: { deep: true },
};
export const update: Schemas["UpdateFeedbackParams"] = { feedbackId: "0193", title: "Dark mode", meta };
export const plan = (item: Schemas["FeedbackJson"]): unknown => item.meta["plan"];
export const source = (subscriber: Schemas["SubscriberDto"]): unknown => subscriber.meta.source;
export const identify: Schemas["IdentifyParams"] = { email: "ann@example.com", meta: { company: "Acme" } };

// Fields given one of two ways keep all their properties.
export const byId: Schemas["FeedbackIdParams"] = { id: "0193" };
export const byFeedbackId: Schemas["FeedbackIdParams"] = { feedbackId: "0193" };
export const byUrlId: Schemas["FeedbackInfoParams"] = { urlId: "k3j9x0a2mq" };
export const unsubscribe: Schemas["UnsubscribeParams"] = { targetUrl: "https://a.example", event: "new_feedback" };

// `public/notifications.markRead` is an operation of the client, with both forms.
type MarkRead = NonNullable<operations["public/notifications.markRead"]["requestBody"]>;
export const markAll: MarkRead["content"]["application/json"] = { all: true };
export const markSome: MarkRead["content"]["application/json"] = { ids: ["0193"] };

// Parameter objects are closed: a misspelt field does not compile.
// @ts-expect-error `nmae` is not a parameter of feedback-boards.create
export const misspelt: Schemas["CreateBoardParams"] = { name: "Ideas", nmae: "Ideas" };

// Every event's payload is typed, down to `data`.
export function describe(delivery: Payload<"feedback_status_change">): string {
    const { feedbackId, previousStatus, status, data } = delivery;
    return `${feedbackId}: ${previousStatus} -> ${status} (${data.title})`;
}
export const statusChange: Payload<"feedback_status_change">["status"] = "planned";
export function merged(delivery: Payload<"feedbacks.update">): string | undefined {
    return delivery.mergedIntoFeedbackId ?? delivery.mergedFeedbackId;
}
export function voter(delivery: Payload<"topic-votes.create">): string {
    return `${delivery.event} ${delivery.subscriberId} ${delivery.data.id}`;
}
export const signature = (headers: NonNullable<webhooks["new_feedback"]["post"]>["parameters"]["header"]): string =>
    `${headers["webhook-id"]} ${headers["webhook-timestamp"]} ${headers["webhook-signature"]}`;
