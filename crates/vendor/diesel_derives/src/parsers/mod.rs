mod belongs_to;
mod mysql_type;
mod postgres_type;
mod sqlite_type;

pub use self::belongs_to::BelongsTo;
pub use self::mysql_type::MysqlType;
pub use self::postgres_type::PostgresType;
pub use self::sqlite_type::SqliteType;
