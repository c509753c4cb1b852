//! The questions a tool asks beyond one form or one sampling request: several in one round
//! ([`ToolContext::ask_all`]), one under a key of its choosing ([`ToolContext::ask`]), and
//! the client's roots ([`ToolContext::roots`]). Its own module, above `context`, so the
//! context's file stays the context's.

use crate::client::{Answer, Ask, ClientError, Elicitation, Question, Root, RootsRequest};
use crate::context::ToolContext;

impl ToolContext {
    /// Asks the client every question of `questions` in one round and returns the answers
    /// in the same order: forms, sampling requests and roots, each with the key the tool
    /// named ([`Ask::key`]) or one the server makes. A client of MCP's 2026-07-28 revision
    /// gets them all in one `InputRequiredResult` and repeats the call once with every
    /// answer; a client of the handshake era is sent them as concurrent requests.
    ///
    /// Each question counts against the call's limit of client requests
    /// (`max_client_requests`): a batch over what is left is refused whole, and nothing is
    /// asked.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use serde_json::json;
    /// use toolwright_core::client::{Answer, Ask, ClientFuture, ClientPowers, ElicitationRequest, Root, RootsRequest};
    /// use toolwright_core::{ClientError, Elicitation, ToolContext};
    ///
    /// struct Client;
    /// impl ClientPowers for Client {
    ///     fn elicit(&self, _: ElicitationRequest) -> ClientFuture<Result<Elicitation<serde_json::Value>, ClientError>> {
    ///         Box::pin(async { Ok(Elicitation::Accepted(json!({"name": "Ada"}))) })
    ///     }
    ///     fn roots(&self, _: RootsRequest) -> ClientFuture<Result<Vec<Root>, ClientError>> {
    ///         Box::pin(async { Ok(vec![Root::new("file:///work")]) })
    ///     }
    /// }
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name { name: String }
    ///
    /// let ctx = ToolContext::new().with_client(Arc::new(Client));
    /// let [name, roots] = <[Answer; 2]>::try_from(
    ///     ctx.ask_all([Ask::form::<Name>("Your name?").key("user_name"), Ask::roots()]).await.unwrap(),
    /// ).unwrap();
    /// let Elicitation::Accepted(Name { name }) = name.form::<Name>().unwrap() else { panic!() };
    /// assert_eq!((name.as_str(), roots.roots().unwrap()[0].uri.as_str()), ("Ada", "file:///work"));
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidQuestion`] for a key that is not a short name;
    /// [`ClientError::UnsupportedSchema`] for a form MCP cannot ask;
    /// [`ClientError::NotAvailable`] when the client cannot answer one of them (nothing is
    /// asked); [`ClientError::LimitReached`], [`ClientError::Cancelled`],
    /// [`ClientError::Protocol`], [`ClientError::InvalidAnswer`].
    pub async fn ask_all(
        &self,
        questions: impl IntoIterator<Item = Ask>,
    ) -> Result<Vec<Answer>, ClientError> {
        let questions = questions
            .into_iter()
            .map(|ask| ask.resolve(self.tool_name()))
            .collect::<Result<Vec<Question>, ClientError>>()?;
        if questions.is_empty() {
            return Ok(Vec::new());
        }
        let count = u32::try_from(questions.len()).unwrap_or(u32::MAX);
        let what = if questions.len() == 1 {
            questions[0].kind()
        } else {
            "questions"
        };
        let client = self.client_for_many(what, count)?;
        let answers = self.wait_for(client.ask_all(questions)).await?;
        if answers.len() != usize::try_from(count).unwrap_or(usize::MAX) {
            return Err(ClientError::InvalidAnswer(format!(
                "asked {count} questions, got {} answers",
                answers.len()
            )));
        }
        for answer in &answers {
            if let Answer::Elicit(Elicitation::Accepted(value)) = answer
                && !value.is_object()
            {
                return Err(ClientError::InvalidAnswer(format!(
                    "expected an object, got {value}"
                )));
            }
        }
        Ok(answers)
    }

    /// Asks the client one question built with [`Ask`] (a form, a sampling request or the
    /// roots), under the key the tool named, if any.
    ///
    /// ```
    /// # async fn greet(ctx: &toolwright_core::ToolContext) -> Result<String, toolwright_core::ClientError> {
    /// use toolwright_core::Elicitation;
    /// use toolwright_core::client::Ask;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name { name: String }
    ///
    /// let answer = ctx.ask(Ask::form::<Name>("What is your name?").key("user_name")).await?;
    /// Ok(match answer.form::<Name>()? {
    ///     Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
    ///     _ => "Hello!".to_owned(),
    /// })
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ask_all`](Self::ask_all).
    pub async fn ask(&self, question: Ask) -> Result<Answer, ClientError> {
        let mut answers = self.ask_all([question]).await?;
        answers
            .pop()
            .ok_or_else(|| ClientError::InvalidAnswer("no answer came back".to_owned()))
    }

    /// The client's roots: the directories and files it lets the server see (MCP
    /// `roots/list`, deprecated by the 2026-07-28 revision but still answered by clients
    /// that declare `roots`). Counts as one request of the call's limit.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use toolwright_core::{ClientError, ToolContext};
    ///
    /// let Err(ClientError::NotAvailable { what: "roots", .. }) = ToolContext::new().roots().await else { panic!() };
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::NotAvailable`] when the client did not declare `roots` (or there is
    /// no client); [`ClientError::LimitReached`], [`ClientError::Cancelled`],
    /// [`ClientError::Protocol`], [`ClientError::InvalidAnswer`].
    pub async fn roots(&self) -> Result<Vec<Root>, ClientError> {
        let client = self.client_for_many("roots", 1)?;
        self.wait_for(client.roots(RootsRequest::new(self.tool_name())))
            .await
    }
}
