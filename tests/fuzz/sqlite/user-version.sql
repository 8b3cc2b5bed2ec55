PRAGMA user_version = 3; PRAGMA application_id = 1397836870;
