//! [`CsvOrParams`]: the extractor of the one operation that also takes a raw CSV body
//! (`feedbacks.import`). A `text/csv` body becomes the parameter `csv` (other parameters come
//! from the query string); any other body is read exactly as [`Params`](super::Params) reads
//! it. The 1 MiB limit holds for both.

use actix_web::{dev::Payload, web::BytesMut, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{add_query, has_media_type, merged_object, read_params};
use crate::error::ApiError;

#[derive(Debug, Clone)]
pub struct CsvOrParams<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for CsvOrParams<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let params = read_params(req, payload, csv_or_params);
        Box::pin(async move { params.await.map(CsvOrParams) })
    }
}

/// A `text/csv` body (with or without parameters such as `; charset=utf-8`) as the parameter
/// `csv` plus the query string; any other body as [`Params`](super::Params) reads it.
fn csv_or_params(req: &HttpRequest, body: BytesMut) -> Result<Map<String, Value>, ApiError> {
    if !has_media_type(req, "text/csv") {
        return merged_object(req, &body);
    }
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| ApiError::bad_request("csv must be UTF-8 text"))?;
    let mut object = Map::new();
    object.insert("csv".into(), Value::String(text));
    add_query(req, &mut object)?;
    Ok(object)
}

#[cfg(test)]
mod tests {
    use actix_web::{
        http::{header::CONTENT_TYPE, StatusCode},
        test::TestRequest,
        ResponseError,
    };
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        csv: Option<String>,
        board_id: Option<String>,
    }

    async fn extract(req: TestRequest) -> Result<Probe, ApiError> {
        let (req, mut payload) = req.to_http_parts();
        CsvOrParams::<Probe>::from_request(&req, &mut payload)
            .await
            .map(|p| p.0)
    }

    #[actix_web::test]
    async fn a_csv_body_is_the_csv_parameter_and_the_query_adds_the_rest() {
        let probe = extract(
            TestRequest::post()
                .uri("/v1/feedbacks.import?boardId=b1")
                .insert_header((CONTENT_TYPE, "text/csv; charset=utf-8"))
                .set_payload("title\r\nx\r\n"),
        )
        .await
        .unwrap();
        assert_eq!(probe.csv.as_deref(), Some("title\r\nx\r\n"));
        assert_eq!(probe.board_id.as_deref(), Some("b1"));
    }

    #[actix_web::test]
    async fn json_still_works_and_other_types_are_415() {
        let probe = extract(
            TestRequest::post()
                .uri("/v1/feedbacks.import")
                .insert_header((CONTENT_TYPE, "application/json"))
                .set_payload(r#"{"csv": "title"}"#),
        )
        .await
        .unwrap();
        assert_eq!(probe.csv.as_deref(), Some("title"));
        let err = extract(
            TestRequest::post()
                .uri("/v1/feedbacks.import")
                .insert_header((CONTENT_TYPE, "text/plain"))
                .set_payload("title"),
        )
        .await
        .unwrap_err();
        assert_eq!(err.status_code(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let err = extract(
            TestRequest::post()
                .uri("/v1/feedbacks.import")
                .insert_header((CONTENT_TYPE, "text/csv"))
                .set_payload(vec![0xff_u8, 0xfe]),
        )
        .await
        .unwrap_err();
        assert_eq!(err.status_code(), StatusCode::BAD_REQUEST);
    }
}
