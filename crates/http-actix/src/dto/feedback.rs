//! Parameters and replies of the feedback, vote and comment operations. The feedback, comment
//! and vote objects themselves are `sounding_app::wire`'s (events carry the same shapes).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_app::{
    feedback::{
        FeedbackChanges, FeedbackListInput, FeedbackLookup, NewFeedbackInput, PublicFeedbackInput,
        PublicFeedbackPage,
    },
    feedback_comments::{CommentChanges, CommentListInput, PublicCommentInput, TeamCommentInput},
    subscribers::OnBehalfInput,
    wire::{CommentJson, FeedbackJson, VoteJson},
};
use sounding_domain::{
    feedback::FeedbackView,
    feedback_comment::CommentView,
    feedback_vote::{FeedbackVote, VoteState},
    page::Paged,
    FeedbackId, FeedbackVoteId,
};
use utoipa::ToSchema;

use super::common::Pagination;
use crate::params::lenient;

/// `{data: Feedback}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeedbackResponse {
    pub data: FeedbackJson,
}

impl FeedbackResponse {
    pub fn new(view: &FeedbackView) -> Self {
        Self { data: view.into() }
    }
}

/// The pagination of `feedbacks.list`: `count` repeats `total` (clients read either).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct FeedbackPagination {
    /// Items matching the filters, before paging.
    pub total: i64,
    /// The same as `total`.
    pub count: i64,
    pub limit: i64,
    pub offset: i64,
}

/// `{data: [Feedback], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeedbackListResponse {
    pub data: Vec<FeedbackJson>,
    pub pagination: FeedbackPagination,
}

impl From<Paged<FeedbackView>> for FeedbackListResponse {
    fn from(page: Paged<FeedbackView>) -> Self {
        Self {
            data: page.items.into_iter().map(FeedbackJson::from).collect(),
            pagination: FeedbackPagination {
                total: page.total,
                count: page.total,
                limit: page.page.limit,
                offset: page.page.offset,
            },
        }
    }
}

impl From<PublicFeedbackPage> for FeedbackListResponse {
    /// Each item says `hasVoted` when the page knows the caller's votes.
    fn from(page: PublicFeedbackPage) -> Self {
        let mut response = Self::from(page.items);
        if let Some(voted) = page.voted {
            for item in &mut response.data {
                item.has_voted = Some(voted.contains(&item.id));
            }
        }
        response
    }
}

/// `{success: true, feedbackId}`: the item is gone, or is (un)followed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackDoneResponse {
    pub success: bool,
    #[schema(value_type = String, format = Uuid)]
    pub feedback_id: FeedbackId,
}

impl FeedbackDoneResponse {
    pub fn new(feedback_id: FeedbackId) -> Self {
        Self {
            success: true,
            feedback_id,
        }
    }
}

/// Team `feedbacks.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateFeedbackParams {
    /// 1..=255 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S", example = "Dark mode")]
    pub title: Option<String>,
    /// Plain text, at most 50,000 characters.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Default `in_review`.
    #[schema(
        example = "planned",
        pattern = r"^(in_review|in_progress|planned|completed|closed)$"
    )]
    pub status: Option<String>,
    /// Default `medium`.
    #[schema(example = "high", pattern = r"^(low|medium|high|urgent)$")]
    pub priority: Option<String>,
    /// A board of the team; none when absent.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub board_id: Option<String>,
    /// A custom feedback type, at most 50 characters.
    #[serde(rename = "type")]
    #[schema(max_length = 50, example = "idea")]
    pub kind: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
    /// The subscriber the item is created for (found or created, source `api`); the key's
    /// user when absent.
    #[schema(
        max_length = 254,
        example = "jane@example.com",
        pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$"
    )]
    pub creator_email: Option<String>,
    /// The name of a subscriber created for `creatorEmail`; at most 255 characters.
    #[schema(max_length = 255)]
    pub creator_name: Option<String>,
    /// An existing subscriber of the team the item is created for (404 `Subscriber not
    /// found` otherwise); not with `creatorEmail` or `creatorName`.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub creator_id: Option<String>,
    /// Tags of the team the item carries (404 `Tag not found` for another).
    #[serde(default, deserialize_with = "lenient::opt_string_list")]
    #[schema(value_type = Option<Vec<String>>)]
    pub tag_ids: Option<Vec<String>>,
}

impl From<CreateFeedbackParams> for NewFeedbackInput {
    fn from(p: CreateFeedbackParams) -> Self {
        Self {
            title: p.title,
            text: p.text,
            status: p.status,
            priority: p.priority,
            board_id: p.board_id,
            kind: p.kind,
            meta: p.meta,
            creator_id: p.creator_id,
            creator_email: p.creator_email,
            creator_name: p.creator_name,
            tag_ids: p.tag_ids,
        }
    }
}

/// `public/feedbacks.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicCreateFeedbackParams {
    /// 1..=255 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S", example = "Dark mode")]
    pub title: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// A public board of the caller's team that accepts submissions; none when absent.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub board_id: Option<String>,
    /// A custom feedback type, at most 50 characters.
    #[serde(rename = "type")]
    #[schema(max_length = 50)]
    pub kind: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
}

impl From<PublicCreateFeedbackParams> for PublicFeedbackInput {
    fn from(p: PublicCreateFeedbackParams) -> Self {
        Self {
            title: p.title,
            text: p.text,
            board_id: p.board_id,
            kind: p.kind,
            meta: p.meta,
        }
    }
}

/// Team `feedbacks.update`: only the fields given change; meta keys merge (null removes one).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateFeedbackParams {
    /// The item's id (`feedbackId` is accepted too).
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    #[schema(value_type = Option<String>, format = Uuid)]
    pub feedback_id: Option<String>,
    /// 1..=255 characters after trimming.
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// A change announces itself with `feedback_status_change`.
    #[schema(pattern = r"^(in_review|in_progress|planned|completed|closed)$")]
    pub status: Option<String>,
    #[schema(pattern = r"^(low|medium|high|urgent)$")]
    pub priority: Option<String>,
    /// Moves the item to another board of the team.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub board_id: Option<String>,
    /// A custom feedback type, at most 50 characters.
    #[serde(rename = "type")]
    #[schema(max_length = 50)]
    pub kind: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
    /// Replaces the item's tags with these tags of the team (`[]` removes them all).
    #[serde(default, deserialize_with = "lenient::opt_string_list")]
    #[schema(value_type = Option<Vec<String>>)]
    pub tag_ids: Option<Vec<String>>,
}

impl From<UpdateFeedbackParams> for FeedbackChanges {
    fn from(p: UpdateFeedbackParams) -> Self {
        Self {
            id: p.id.or(p.feedback_id),
            title: p.title,
            text: p.text,
            status: p.status,
            priority: p.priority,
            board_id: p.board_id,
            kind: p.kind,
            meta: p.meta,
            tag_ids: p.tag_ids,
        }
    }
}

/// `public/feedbacks.update` (creator only): only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicUpdateFeedbackParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
    /// 1..=255 characters after trimming.
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Moves the item to another public board that accepts submissions.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub board_id: Option<String>,
    /// A custom feedback type, at most 50 characters.
    #[serde(rename = "type")]
    #[schema(max_length = 50)]
    pub kind: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
}

impl From<PublicUpdateFeedbackParams> for FeedbackChanges {
    fn from(p: PublicUpdateFeedbackParams) -> Self {
        Self {
            id: p.feedback_id,
            title: p.title,
            text: p.text,
            board_id: p.board_id,
            kind: p.kind,
            meta: p.meta,
            ..Self::default()
        }
    }
}

/// `{id}` of the team's single-item operations (`feedbackId` is accepted too).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackIdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    #[schema(value_type = Option<String>, format = Uuid)]
    pub feedback_id: Option<String>,
}

impl FeedbackIdParams {
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref().or(self.feedback_id.as_deref())
    }
}

/// `{feedbackId}` of the public single-item operations.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicFeedbackIdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
}

/// Team `feedbacks.vote|unvote`: the item and the subscriber the vote is for.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnBehalfVoteParams {
    /// The item (`id` is accepted as another name for it).
    #[serde(alias = "id")]
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
    /// The subscriber the vote is for; or give `email` instead; the key's user when neither is
    /// given.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub subscriber_id: Option<String>,
    /// The voter's e-mail: the subscriber with it, created as `public/subscriber.identify`
    /// does (source `api`) when new.
    #[schema(
        max_length = 254,
        pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$"
    )]
    pub email: Option<String>,
    /// The name given to (or updated on) the subscriber `email` names, as identify does.
    #[schema(max_length = 255)]
    pub name: Option<String>,
}

impl OnBehalfVoteParams {
    /// The item's id as sent, and the voter.
    pub fn into_parts(self) -> (Option<String>, OnBehalfInput) {
        (
            self.feedback_id,
            OnBehalfInput {
                subscriber_id: self.subscriber_id,
                email: self.email,
                name: self.name,
            },
        )
    }
}

/// Team `feedbacks.info`: `id` or `urlId`, exactly one.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackInfoParams {
    #[schema(value_type = Option<String>, format = Uuid)]
    pub id: Option<String>,
    /// The short id (or a whole url slug ending in it).
    #[schema(example = "k3j9x0a2mq")]
    pub url_id: Option<String>,
}

impl From<FeedbackInfoParams> for FeedbackLookup {
    fn from(p: FeedbackInfoParams) -> Self {
        Self {
            id: p.id,
            url_id: p.url_id,
        }
    }
}

/// `public/feedbacks.info`: `feedbackId` or `urlId`, exactly one.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicFeedbackInfoParams {
    #[schema(value_type = Option<String>, format = Uuid)]
    pub feedback_id: Option<String>,
    #[schema(example = "k3j9x0a2mq")]
    pub url_id: Option<String>,
}

impl From<PublicFeedbackInfoParams> for FeedbackLookup {
    fn from(p: PublicFeedbackInfoParams) -> Self {
        Self {
            id: p.feedback_id,
            url_id: p.url_id,
        }
    }
}

/// The two feedback lists' parameter structs: the same filters, and the team's adds
/// `archived` (the public list has no archived items to ask for, so there it is unknown).
macro_rules! feedback_list_params {
    ($(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, Deserialize, ToSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// `newest` (default: newest first), `top` (most votes first) or `trending` (most
            /// votes and comments in the last 7 days first).
            #[schema(example = "top", pattern = r"^(newest|top|trending)$")]
            pub sort_by: Option<String>,
            /// One status, a list, or a comma-separated string; every status when absent.
            #[serde(default, deserialize_with = "lenient::opt_string_list")]
            #[schema(value_type = Option<Vec<String>>, example = json!(["planned", "in_progress"]))]
            pub status: Option<Vec<String>>,
            #[schema(value_type = Option<String>, format = Uuid)]
            pub board_id: Option<String>,
            /// Only items carrying this tag.
            #[schema(value_type = Option<String>, format = Uuid)]
            pub tag_id: Option<String>,
            /// Case-insensitive substring of the title or text.
            pub search: Option<String>,
            /// 1..=100, default 20; larger values are clamped to 100.
            #[serde(default, deserialize_with = "lenient::opt_i64")]
            #[schema(minimum = 1)]
            pub limit: Option<i64>,
            #[serde(default, deserialize_with = "lenient::opt_i64")]
            #[schema(minimum = 0)]
            pub offset: Option<i64>,
            /// Only items created at or after this RFC 3339 instant, or from the start of
            /// this date (`2026-11-01`, UTC).
            #[schema(example = "2026-11-01", pattern = r"^\d{4}-(?:(?:01|03|05|07|08|10|12)-(?:0[1-9]|[12]\d|3[01])|(?:04|06|09|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$")]
            pub from: Option<String>,
            /// Only items created at or before this RFC 3339 instant, or until the end of
            /// this date.
            #[schema(example = "2026-11-30", pattern = r"^\d{4}-(?:(?:01|03|05|07|08|10|12)-(?:0[1-9]|[12]\d|3[01])|(?:04|06|09|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$")]
            pub to: Option<String>,
            $($extra)*
        }
    };
}

feedback_list_params!(
    /// Team `feedbacks.list`.
    FeedbackListParams {
        /// Include archived items.
        #[serde(default, deserialize_with = "lenient::opt_bool")]
        pub archived: Option<bool>,
    }
);

feedback_list_params!(
    /// `public/feedbacks.list`.
    PublicFeedbackListParams {}
);

impl From<FeedbackListParams> for FeedbackListInput {
    fn from(p: FeedbackListParams) -> Self {
        Self {
            sort_by: p.sort_by,
            statuses: p.status.unwrap_or_default(),
            board_id: p.board_id,
            tag_id: p.tag_id,
            search: p.search,
            limit: p.limit,
            offset: p.offset,
            archived: p.archived,
            from: p.from,
            to: p.to,
        }
    }
}

impl From<PublicFeedbackListParams> for FeedbackListInput {
    fn from(p: PublicFeedbackListParams) -> Self {
        Self {
            sort_by: p.sort_by,
            statuses: p.status.unwrap_or_default(),
            board_id: p.board_id,
            tag_id: p.tag_id,
            search: p.search,
            limit: p.limit,
            offset: p.offset,
            archived: None,
            from: p.from,
            to: p.to,
        }
    }
}

/// `{data: Vote, totalVotes}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoteCreatedResponse {
    pub data: VoteJson,
    /// The item's votes after this one.
    pub total_votes: i64,
}

impl VoteCreatedResponse {
    /// The new vote and the item's count after it.
    pub fn new(vote: &FeedbackVote, total_votes: i64) -> Self {
        Self {
            data: vote.into(),
            total_votes,
        }
    }
}

/// `{success: true, totalVotes}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoteDeletedResponse {
    pub success: bool,
    pub total_votes: i64,
}

impl VoteDeletedResponse {
    /// The item's count once the vote is gone.
    pub fn new(total_votes: i64) -> Self {
        Self {
            success: true,
            total_votes,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoteInfo {
    pub count: i64,
    #[schema(value_type = String, format = Uuid)]
    pub feedback_id: FeedbackId,
    /// Whether the calling subscriber voted; always false under an API key.
    pub has_voted: bool,
    /// The calling subscriber's vote; null under an API key or without a vote.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub vote_id: Option<FeedbackVoteId>,
}

/// `{data: {count, feedbackId, hasVoted, voteId}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VoteInfoResponse {
    pub data: VoteInfo,
}

impl VoteInfoResponse {
    pub fn new(feedback_id: FeedbackId, state: &VoteState) -> Self {
        Self {
            data: VoteInfo {
                count: state.count,
                feedback_id,
                has_voted: state.vote.is_some(),
                vote_id: state.vote.as_ref().map(|v| v.id),
            },
        }
    }
}

/// `{data: Comment}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CommentResponse {
    pub data: CommentJson,
}

/// `{data: [Comment], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CommentListResponse {
    pub data: Vec<CommentJson>,
    pub pagination: Pagination,
}

impl From<&Paged<CommentView>> for CommentListResponse {
    fn from(page: &Paged<CommentView>) -> Self {
        Self {
            data: page.items.iter().map(CommentJson::from).collect(),
            pagination: Pagination::of(page),
        }
    }
}

/// `public/feedback-comments.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicCommentParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
    /// 1..=10,000 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 10000, pattern = r"\S")]
    pub text: Option<String>,
    /// Visible to team members only; only team members may post one. Default false.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub is_private: Option<bool>,
}

impl From<PublicCommentParams> for PublicCommentInput {
    fn from(p: PublicCommentParams) -> Self {
        Self {
            feedback_id: p.feedback_id,
            text: p.text,
            is_private: p.is_private,
        }
    }
}

/// Team `feedback-comments.create`, on behalf of a subscriber.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamCommentParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
    #[schema(required = true, value_type = String, min_length = 1, max_length = 10000, pattern = r"\S")]
    pub text: Option<String>,
    /// The author; or give `email` instead; the key's user when neither is given.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub subscriber_id: Option<String>,
    /// The author's e-mail (a subscriber is created for it when new, source `api`).
    #[schema(
        max_length = 254,
        pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$"
    )]
    pub email: Option<String>,
    /// The name of a subscriber created for `email`.
    pub name: Option<String>,
    /// `public` (default) or `private`.
    #[serde(rename = "type")]
    #[schema(example = "private", pattern = r"^(public|private)$")]
    pub kind: Option<String>,
    /// The same as `type: private` when `type` is absent.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub is_private: Option<bool>,
}

impl From<TeamCommentParams> for TeamCommentInput {
    fn from(p: TeamCommentParams) -> Self {
        Self {
            feedback_id: p.feedback_id,
            text: p.text,
            subscriber_id: p.subscriber_id,
            email: p.email,
            name: p.name,
            kind: p.kind,
            is_private: p.is_private,
        }
    }
}

/// Team `feedback-comments.update`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateCommentParams {
    /// The comment.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// The new text: 1..=10,000 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 10000, pattern = r"\S")]
    pub text: Option<String>,
    /// Makes the comment private (team members only) or public; unchanged when absent.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub is_private: Option<bool>,
}

impl From<UpdateCommentParams> for CommentChanges {
    fn from(p: UpdateCommentParams) -> Self {
        Self {
            id: p.id,
            text: p.text,
            is_private: p.is_private,
        }
    }
}

/// `{id}` of team `feedback-comments.delete`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct CommentIdParams {
    /// The comment.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// `public/feedback-comments.list` and the team's `feedback-comments.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentListParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub feedback_id: Option<String>,
    /// 1..=100, default 20.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
    /// `createdAt` (default) or `updatedAt`.
    #[schema(pattern = r"^(createdAt|updatedAt)$")]
    pub sort: Option<String>,
    /// `ASC` (default, oldest first) or `DESC`.
    #[schema(pattern = r"^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$")]
    pub direction: Option<String>,
}

impl From<CommentListParams> for CommentListInput {
    fn from(p: CommentListParams) -> Self {
        Self {
            feedback_id: p.feedback_id,
            sort: p.sort,
            direction: p.direction,
            limit: p.limit,
            offset: p.offset,
        }
    }
}
